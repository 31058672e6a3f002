"""Mutation reports stored with their task (info.json ``mutation_score``), and read back.

`lmr_author.domain.test_strength` owns the stored form and the content hash; this module
turns a run's `MutationReport` into it (`store_scores`) and says, for an implementation,
what its score is without running anything when the task still has the content it was
measured on (`current_strength`).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from lmr_author.domain.task import INFO_FILE, Implementation, Task
from lmr_author.domain.test_strength import (
    MUTATION_SCORE_KEY,
    StoredScore,
    Strength,
    content_hash,
    strength_of,
)
from lmr_author.mutation.score import MutationReport
from lmr_author.util.atomic import atomic_write_json
from lmr_author.util.errors import UserError
from lmr_author.util.json_input import load_json


def stored_form(report: MutationReport, content: str, *, base_image: str = "") -> StoredScore:
    """``report`` as info.json keeps it: equivalent survivors stay survivors (the marks
    are read when the score is shown)."""
    survivors = [m.key for m in report.survivors] + [m.key for m, _ in report.equivalent]
    return StoredScore(
        mutants=report.total,
        killed=report.killed,
        not_run=report.errors,
        survivors=tuple(survivors),
        content=content,
        measured=datetime.now(UTC).isoformat(timespec="seconds"),
        base_image=base_image or "",
    )


def store_scores(
    task_dir: Path, reports: Sequence[MutationReport], *, base_image: str | None = None
) -> None:
    """Write each report's score into the task's info.json (every other key kept), with
    the task's content hash: a later change of the task makes them stale."""
    if not reports:
        return
    content = content_hash(task_dir)
    info = task_dir / INFO_FILE
    data = load_json(info, what="info.json")
    entries = data.get("implementations") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise UserError("info.json has no implementations list", file=info, where="$")
    by_index = {report.impl_index: report for report in reports}
    for entry in entries:
        if isinstance(entry, dict) and entry.get("index") in by_index:
            report = by_index[entry["index"]]
            entry[MUTATION_SCORE_KEY] = stored_form(
                report, content, base_image=base_image or ""
            ).to_json()
    atomic_write_json(info, data)


def current_strength(
    task: Task, impl: Implementation, *, content: str | None = None
) -> Strength | None:
    """``impl``'s stored score when it was measured on the task as it is now; else None."""
    strength = strength_of(task, impl, content=content)
    return strength if strength is not None and strength.current else None
