"""argparse types for numbers: finite, in range, refused by argparse with its usage line.

``float("nan")`` and ``float("inf")`` parse, and a time-out of NaN used to be accepted
and then fail every run; these types refuse such values at the command line (exit 2).
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable


def _number(text: str, kind: Callable[[str], float]) -> float:
    try:
        value = kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
    return value


def positive_float(text: str) -> float:
    """A finite number above 0 (time-outs, prices per 1M tokens)."""
    value = _number(text, float)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be above 0")
    return value


def non_negative_float(text: str) -> float:
    """A finite number of 0 or more (temperatures, prices)."""
    value = _number(text, float)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be 0 or more")
    return value


def positive_int(text: str) -> int:
    """A whole number of 1 or more (attempts, concurrency, token caps)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be 1 or more")
    return value


def non_negative_int(text: str) -> int:
    """A whole number of 0 or more (counts that may be off, such as a bootstrap)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be 0 or more")
    return value
