"""Equivalent mutants: survivors that compute what the golden code computes.

Some mutants cannot be killed by any test: ``shape[0] -> shape[1]`` on a square matrix,
a swapped pair of arguments of a symmetric function the list does not know. The
annotator marks such a survivor equivalent, with the reason, and the task stores it in
info.json (``implementations[i].equivalent_mutants``: the mutant's stable key, the
change, the reason); `validate --mutants` then counts it as equivalent, not as a
survivor, so a task can reach 9/9.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from lmr_author.domain.task import INFO_FILE, Implementation
from lmr_author.domain.test_strength import EQUIVALENTS_KEY
from lmr_author.util.atomic import atomic_write_json
from lmr_author.util.errors import UserError
from lmr_author.util.json_input import load_json

_KEY = re.compile(r"^[0-9a-f]{12}$")


@dataclass(frozen=True)
class EquivalentMutant:
    """A mutant marked equivalent: its key (`Mutant.key`), what it changes, and why."""

    mutant: str
    reason: str
    change: str = ""

    def to_json(self) -> dict[str, str]:
        return {k: v for k, v in asdict(self).items() if v}


def parse_equivalents(
    raw: Any, *, file: Path | None = None, where: str = ""
) -> list[EquivalentMutant]:
    """The equivalent mutants of an info.json implementation entry (or a draft goal)."""
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise UserError(f"'{EQUIVALENTS_KEY}' must be a list", file=file, where=where)
    found = []
    for position, item in enumerate(raw):
        place = f"{where}[{position}]"
        if not isinstance(item, dict):
            raise UserError("an equivalent mutant must be an object", file=file, where=place)
        key, reason = item.get("mutant"), item.get("reason")
        if not isinstance(key, str) or not _KEY.match(key):
            raise UserError(
                "'mutant' must be a mutant's key (12 hex digits, as validate --mutants prints)",
                file=file,
                where=f"{place}.mutant",
            )
        if not isinstance(reason, str) or not reason.strip():
            raise UserError(
                "'reason' must say why the mutant computes the same results",
                file=file,
                where=f"{place}.reason",
            )
        change = item.get("change", "")
        found.append(
            EquivalentMutant(key, reason.strip(), change if isinstance(change, str) else "")
        )
    return found


def equivalents_of(impl: Implementation) -> dict[str, EquivalentMutant]:
    """The implementation's equivalent mutants by key (a malformed list counts as none:
    the schema reports it)."""
    try:
        found = parse_equivalents(impl.extra.get(EQUIVALENTS_KEY))
    except UserError:
        return {}
    return {item.mutant: item for item in found}


def mark_equivalent(task_dir: Path, impl_index: int, marked: Iterable[EquivalentMutant]) -> None:
    """Add (or replace, by key) equivalent mutants of implementation ``impl_index`` in
    the task's info.json, keeping every other key and value as it was."""
    _edit(task_dir, impl_index, list(marked), replace=False)


def set_equivalents(task_dir: Path, impl_index: int, marked: Iterable[EquivalentMutant]) -> None:
    """Make ``marked`` the whole list of implementation ``impl_index`` (none: no key)."""
    _edit(task_dir, impl_index, list(marked), replace=True)


def _edit(
    task_dir: Path, impl_index: int, marked: list[EquivalentMutant], *, replace: bool
) -> None:
    info = task_dir / INFO_FILE
    data = load_json(info, what="info.json")
    entries = data.get("implementations") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise UserError("info.json has no implementations list", file=info, where="$")
    for position, entry in enumerate(entries):
        if isinstance(entry, dict) and entry.get("index") == impl_index:
            where = f"$.implementations[{position}].{EQUIVALENTS_KEY}"
            known = (
                {}
                if replace
                else {
                    e.mutant: e
                    for e in parse_equivalents(entry.get(EQUIVALENTS_KEY), file=info, where=where)
                }
            )
            for item in marked:
                known[item.mutant] = item
            if known:
                entry[EQUIVALENTS_KEY] = [item.to_json() for item in known.values()]
            else:
                entry.pop(EQUIVALENTS_KEY, None)
            atomic_write_json(info, data)
            return
    raise UserError(f"info.json has no implementation with index {impl_index}", file=info)
