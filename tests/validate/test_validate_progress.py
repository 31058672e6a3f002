"""validate --run's progress lines name the task once ("01-DPO #1: golden")."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import lmr_author.validate.dynamic as dynamic
from lmr_author.domain.task import Task
from lmr_author.validate.proof import prove_reports
from lmr_author.validate.rules import all_rules
from lmr_author.validate.static import TaskReport

SAMPLE = Path(__file__).resolve().parents[2] / "benchmark"


def test_each_run_line_names_the_task_once(monkeypatch: pytest.MonkeyPatch) -> None:
    def fake_runs(task: Task, *, on_progress: Callable[[str], None], **_: Any) -> list[Any]:
        # The real one's lines (validate/dynamic.py), without Docker.
        on_progress(f"{task.name} #1: golden")
        return []

    monkeypatch.setattr(dynamic, "run_dynamic_checks", fake_runs)
    lines: list[str] = []
    prove_reports([TaskReport(SAMPLE / "01-DPO")], all_rules(), on_progress=lines.append)
    assert lines == ["01-DPO: proving the tests in Docker…", "  01-DPO #1: golden"]
