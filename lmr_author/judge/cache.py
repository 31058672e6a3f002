"""The judge's answer cache: `lmr_author.llm.ResponseCache` under ``<cache>/judge``.

An entry is ``{"raw", "category", "rationale", "usage"}``; only entries with a category
of 1, 2 or 3 and no error are stored or served (see `is_answer`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lmr_author.llm.cache import ResponseCache, request_key

CACHE_VERSION = 1


def cache_key(
    endpoint: str, model: str, parameters: dict[str, Any], messages: list[dict[str, str]]
) -> str:
    """The sha256 (hex) naming one question to one model at one endpoint."""
    return request_key(endpoint, model, parameters, messages, version=CACHE_VERSION)


def is_answer(entry: dict[str, Any]) -> bool:
    """A real judgment: a category 1-3 read from the answer, and no server error."""
    category = entry.get("category")
    return (
        isinstance(category, int)
        and not isinstance(category, bool)
        and category in (1, 2, 3)
        and entry.get("error") is None
    )


class JudgeCache(ResponseCache):
    """Judge answers by cache key; bad or unreadable entries count as misses."""

    def __init__(self, folder: Path | None = None) -> None:
        super().__init__(folder, namespace="judge")

    def get_answer(self, key: str) -> dict[str, Any] | None:
        return self.get(key, accept=is_answer)

    def put_answer(self, key: str, entry: dict[str, Any]) -> bool:
        return self.put(key, entry, good=is_answer(entry))
