"""How numbers are shown: one rounding rule (half-up) for every percentage printed.

Python's ``round`` and ``format`` round a binary float half-to-even (81.25 → "81.2",
18.75 → "18.8"), so two halves of one split no longer add up to 100 and the same value
reads differently from one table to the next. Every command that shows a percentage
goes through `percent` (the library returns plain numbers; only drawing rounds).
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

#: What an undefined value (nothing counted) is shown as.
MISSING = "-"


def round_half_up(value: float, digits: int = 1) -> Decimal:
    """``value`` rounded half away from zero to ``digits`` decimals.

    ``repr`` gives the shortest decimal that reads back as the float, so 81.25 stays
    81.25 (not 81.2499999…) before it is rounded.
    """
    return _quantize(Decimal(repr(value)), digits)


def _quantize(value: Decimal, digits: int) -> Decimal:
    return value.quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP)


def percent(
    fraction: float | None, *, digits: int = 1, sign: str = "%", missing: str = MISSING
) -> str:
    """A fraction (0.8125) as a shown percentage ("81.3%"); ``missing`` for None."""
    if fraction is None:
        return missing
    return f"{_quantize(Decimal(repr(fraction)) * 100, digits)}{sign}"


def percent_value(value: float | None, *, digits: int = 1, missing: str = MISSING) -> str:
    """A value already in percent (81.25) shown with ``digits`` decimals ("81.3")."""
    if value is None:
        return missing
    return str(round_half_up(value, digits))
