"""Mutation reports stored with their task, and read back without running anything."""

from __future__ import annotations

import json
from pathlib import Path

from lmr_author.domain.task import load_task
from lmr_author.mutation.equivalents import EquivalentMutant, mark_equivalent
from lmr_author.mutation.mutants import Mutant
from lmr_author.mutation.score import MutationReport
from lmr_author.mutation.stored import current_strength, store_scores
from lmr_author.util.schema import schema_issues
from tests.support.loose_tasks import write_loose_task


def _mutant(index: int, change: str) -> Mutant:
    return Mutant(index, "arithmetic", change, b"", f"-    a + b\n+    a {change} b\n")


def test_a_report_is_stored_and_read_back_with_later_equivalent_marks(tmp_path: Path) -> None:
    task_dir = write_loose_task(tmp_path, goals=(3,))
    survivor, equivalent = _mutant(1, "-"), _mutant(2, "*")
    report = MutationReport("t", 3, total=6, killed=3, errors=1, survivors=[survivor])
    report.equivalent = [(equivalent, EquivalentMutant(equivalent.key, "same"))]
    store_scores(task_dir, [report], base_image="img:1")
    info = json.loads((task_dir / "info.json").read_text())
    assert schema_issues(info) == []
    stored = info["implementations"][0]["mutation_score"]
    assert stored["survivors"] == [survivor.key, equivalent.key]
    assert stored["base_image"] == "img:1"
    task = load_task(task_dir)
    strength = current_strength(task, task.implementation(3))
    assert strength is not None
    assert (strength.stored.killed, strength.counted, strength.equivalent) == (3, 5, 0)
    # Marked equivalent after the run: counted apart, and the score still current.
    mark_equivalent(task_dir, 3, [EquivalentMutant(survivor.key, "the inputs are square")])
    task = load_task(task_dir)
    strength = current_strength(task, task.implementation(3))
    assert strength is not None
    assert (strength.counted, strength.equivalent, strength.score) == (4, 1, 0.75)


def test_a_score_of_other_content_is_not_current(tmp_path: Path) -> None:
    task_dir = write_loose_task(tmp_path, goals=(3,))
    store_scores(task_dir, [MutationReport("t", 3, total=2, killed=2)])
    (task_dir / "loosenet" / "metric.py").write_text("# another masked file\n")
    task = load_task(task_dir)
    assert current_strength(task, task.implementation(3)) is None
