"""The shared cache stores only good answers; usage, prices and token estimates."""

from __future__ import annotations

from pathlib import Path

import pytest

from lmr_author.llm import (
    ResponseCache,
    Usage,
    estimate_cost,
    estimate_message_tokens,
    estimate_tokens,
    price_for,
    request_key,
)


def test_only_good_answers_are_stored(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path)
    key = request_key("http://x/v1", "m", {"temperature": 0}, [{"role": "user", "content": "q"}])
    assert cache.put(key, {"text": ""}, good=False) is False
    assert cache.get(key) is None
    assert not any(tmp_path.rglob("*.json"))
    assert cache.put(key, {"text": "answer"}, good=True) is True
    assert cache.get(key) == {"text": "answer", "key": key}
    assert cache.get(key, accept=lambda entry: entry["text"] == "other") is None


def test_the_key_changes_with_every_part_of_the_request() -> None:
    base = ("http://x/v1", "m", {"temperature": 0}, [{"role": "user", "content": "q"}])
    key = request_key(*base)  # type: ignore[arg-type]
    assert request_key("http://x/v1/", *base[1:]) == key  # type: ignore[arg-type]
    assert request_key(base[0], "n", *base[2:]) != key  # type: ignore[arg-type]
    assert request_key(*base[:2], {"temperature": 1}, base[3]) != key  # type: ignore[arg-type]
    assert request_key(*base[:3], [{"role": "user", "content": "r"}]) != key  # type: ignore[arg-type]


def test_prices_and_costs() -> None:
    assert price_for("gpt-4o-2024-08-06") == price_for("gpt-4o")
    assert price_for("gpt-4o-mini-2024-07-18") == price_for("gpt-4o-mini")
    assert price_for("my-local-model") is None
    custom = price_for("my-local-model", price_in=1.0, price_out=2.0)
    cost = estimate_cost(Usage(1_000_000, 500_000, 1_500_000), custom)
    assert cost == pytest.approx(2.0)
    assert estimate_cost(Usage(10, 10, 20), None) is None


def test_token_estimates() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("abcd" * 100) == 100
    assert estimate_message_tokens([{"role": "user", "content": "abcd" * 10}]) == 14
