"""How task names are shown and how lists of names are sorted, in one place.

The same task reaches the labels three ways: a benchmark folder (``01-DPO``), a published
judge-output file name (``1-DPO``) and a published label's bare paper index (``1``).
They match on the paper index (`lmr_author.labels.aliases`); on screen they are shown one
way, `display_task`, the benchmark's zero-padded folder spelling, so ``agreement`` and
``labels list`` name a task alike. `natural_key` sorts names with numbers in them as
people count (2 before 11), for every list the reports print.
"""

from __future__ import annotations

import re

__all__ = ["display_task", "natural_key"]

_NUMBERED = re.compile(r"^\s*0*(\d+)\s*(?:-\s*(.*))?$", re.DOTALL)
_DIGITS = re.compile(r"(\d+)")


def display_task(task: str) -> str:
    """``1-DPO`` / ``01-DPO`` -> ``01-DPO``, ``7`` -> ``07``; names without a number as is."""
    match = _NUMBERED.match(task)
    if match is None:
        return task
    number, name = int(match.group(1)), match.group(2)
    return f"{number:02d}-{name}" if name else f"{number:02d}"


def natural_key(text: str) -> tuple[tuple[int, int, str], ...]:
    """Sort key that orders the digit runs of ``text`` by value: ``2`` < ``11`` < ``13``."""
    parts = _DIGITS.split(text)
    return tuple(
        (1, int(part), part) if part.isdigit() else (0, 0, part.casefold())
        for part in parts
        if part
    )
