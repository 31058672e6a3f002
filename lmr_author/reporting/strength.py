"""The benchmark's test strength as its tasks store it (``report``): per implementation,
the mutation score `lmr-author strengthen` (or the app's save) stored in info.json, read
with today's equivalent marks, and whether it was measured on the task's current content
(`lmr_author.domain.test_strength`). Nothing runs: a stale score is shown as stale."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class StrengthRow:
    """One implementation's stored score."""

    task: str
    implementation: int
    goal: str
    score: float
    killed: int
    counted: int
    equivalent: int
    survivors: int
    #: The score was measured on the task as it is now (else: stale).
    current: bool
    #: The tests eval runs: the published one and the extra ones (a replay test).
    tests: int
    measured: str = ""

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["score"] = round(self.score, 4)
        return data


def stored_strength(benchmark: Path) -> tuple[list[StrengthRow], list[str]]:
    """The rows of the implementations that store a score, and a note on the others."""
    from lmr_author.domain.benchmark import load_benchmark
    from lmr_author.domain.test_strength import content_hash, strength_of

    loaded = load_benchmark(benchmark, runnable=False, allow_empty=True)
    rows: list[StrengthRow] = []
    unmeasured = 0
    for task in loaded.tasks:
        content: str | None = None
        for impl in task.implementations:
            if "mutation_score" not in impl.extra:
                unmeasured += 1
                continue
            content = content or content_hash(task.path)
            strength = strength_of(task, impl, content=content)
            if strength is None:
                unmeasured += 1
                continue
            rows.append(
                StrengthRow(
                    task=task.name,
                    implementation=impl.index,
                    goal=impl.qualified_name,
                    score=strength.score,
                    killed=strength.stored.killed,
                    counted=strength.counted,
                    equivalent=strength.equivalent,
                    survivors=len(strength.survivors),
                    current=strength.current,
                    tests=len(impl.test_files),
                    measured=strength.stored.measured,
                )
            )
    notes = []
    if rows and unmeasured:
        notes.append(
            f"{unmeasured} implementation(s) store no mutation score: "
            "'lmr-author strengthen --measure-only TASK' measures and stores one"
        )
    return rows, notes
