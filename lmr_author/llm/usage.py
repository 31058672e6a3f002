"""Token counts as servers report them, and what they cost at a model's list price."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Usage:
    """Token counts as the server reported them (zeros when it reported none)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            self.total_tokens + other.total_tokens,
        )

    def to_json(self) -> dict[str, int]:
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.total_tokens,
        }

    @classmethod
    def from_json(cls, data: Any) -> Usage:
        if not isinstance(data, dict):
            return cls()

        def number(key: str) -> int:
            value = data.get(key)
            return value if isinstance(value, int) and not isinstance(value, bool) else 0

        return cls(number("prompt_tokens"), number("completion_tokens"), number("total_tokens"))


@dataclass(frozen=True)
class Price:
    """US dollars per 1M input (prompt) and output (completion) tokens."""

    input_per_m: float
    output_per_m: float


#: List prices (USD per 1M tokens) of common models, as published by OpenAI in 2025.
#: Estimates only: pass --price-in/--price-out for anything else or when prices change.
PRICES: dict[str, Price] = {
    "gpt-4o": Price(2.50, 10.00),
    "gpt-4o-mini": Price(0.15, 0.60),
    "gpt-4.1": Price(2.00, 8.00),
    "gpt-4.1-mini": Price(0.40, 1.60),
    "gpt-4.1-nano": Price(0.10, 0.40),
    "o3": Price(2.00, 8.00),
    "o3-mini": Price(1.10, 4.40),
    "o4-mini": Price(1.10, 4.40),
    "gpt-4-turbo": Price(10.00, 30.00),
}


def price_for(
    model: str, *, price_in: float | None = None, price_out: float | None = None
) -> Price | None:
    """The price of ``model``: the overrides when both are given, else the table's entry
    (a dated name such as ``gpt-4o-2024-08-06`` uses its family's price), else None."""
    known = PRICES.get(model)
    if known is None:
        family = [name for name in PRICES if model.startswith(name + "-")]
        known = PRICES[max(family, key=len)] if family else None
    if price_in is None and price_out is None:
        return known
    base = known or Price(0.0, 0.0)
    return Price(
        price_in if price_in is not None else base.input_per_m,
        price_out if price_out is not None else base.output_per_m,
    )


def estimate_cost(usage: Usage, price: Price | None) -> float | None:
    """Dollars for ``usage`` at ``price``; None when the price is unknown."""
    if price is None:
        return None
    return (
        usage.prompt_tokens * price.input_per_m + usage.completion_tokens * price.output_per_m
    ) / 1_000_000
