"""Mutation testing in the task's image: sample tasks kill their mutants; a weak test doesn't."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from lmr_author.cli import main
from lmr_author.domain.task import Task, load_task
from lmr_author.mutation.equivalents import EquivalentMutant, mark_equivalent
from lmr_author.mutation.score import mutation_test

pytestmark = [pytest.mark.docker, pytest.mark.slow]
SAMPLE = Path(__file__).resolve().parents[2] / "benchmark" / "04-InfoNCE"


def test_sample_task_kills_every_mutant(tmp_path: Path, docker_client: Any) -> None:
    task_dir = shutil.copytree(SAMPLE, tmp_path / SAMPLE.name)
    [report] = mutation_test(load_task(task_dir), client=docker_client)
    assert report.total >= 5 and report.errors == 0
    assert report.score == 1.0 and report.survivors == []


def test_weak_test_leaves_survivors_shown_by_validate(
    task_factory: Callable[..., Task], docker_client: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    # add(0, 0) == 0 cannot tell a + b from a - b, nor from a alone.
    task = task_factory(tag="weak", test_source="from calc import add\nassert add(0, 0) == 0\n")
    [report] = mutation_test(task, client=docker_client)
    assert (report.total, report.killed, report.score) == (2, 0, 0.0)
    assert {m.operator for m in report.survivors} == {"arithmetic", "dropped-term"}
    arithmetic = next(m for m in report.survivors if m.operator == "arithmetic")
    main(["validate", "--run", "--mutants", "--verbose", str(task.path)])
    out = capsys.readouterr().out
    assert "#1: mutation score 0% (0 of 2 mutants killed)" in out
    assert f"survivor {arithmetic.key} (arithmetic: Add -> Subtract)" in out
    assert "+    return a - b" in out  # the diff, with --verbose
    assert "equivalent_mutants" in out  # how to mark one
    hint = f"fewer than 50% of these wrong answers fail. 'lmr-author strengthen {task.name}'"
    assert hint in " ".join(out.split())

    # Marked equivalent, with why, in info.json: counted as such, no longer a survivor.
    mark_equivalent(task.path, 1, [EquivalentMutant(arithmetic.key, "a test artefact")])
    [again] = mutation_test(load_task(task.path), client=docker_client)
    assert [m.key for m, _ in again.equivalent] == [arithmetic.key]
    assert (again.scored, again.killed, len(again.survivors)) == (1, 0, 1)
    main(["validate", "--run", "--mutants", "--json", str(task.path)])
    document = json.loads(capsys.readouterr().out)
    [item] = document["mutants"]["implementations"]
    assert item["equivalent"] == [
        {"mutant": arithmetic.key, "operator": "arithmetic", "reason": "a test artefact"}
    ]
    assert [s["operator"] for s in item["survivors"]] == ["dropped-term"]
    assert document["mutants"]["total"]["with_survivors"] == 1
