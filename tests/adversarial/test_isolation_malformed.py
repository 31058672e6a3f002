"""Malformed, huge, unreadable answers and candidates that attack their own process:
the candidate's failure, never an infra-error, never a crash of eval (issue 29).

Answers (huge arrays, strings and lists, lone surrogates, NUL and control characters,
deep nesting, reference cycles, objects of the candidate's own classes, some of which
run code when unpickled, generators, lambdas, modules, files, frames), exceptions (the
same in messages, the candidate's own exception classes, ``SystemExit``,
``KeyboardInterrupt``, ``StopIteration``, ``SkipTest``...), a receiver left in such a
state, and a candidate that exits, kills, starves, stops or floods its own process:
each run is "fail" or "error" ("timeout" for those that hang), eval exits normally with
its results written, and running eval again over the same output (a resume) does too,
with every run still there.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.adversarial.isolation_eval import (
    FAILED,
    Evaluation,
    candidate_for,
    not_passed,
    run_eval,
    table,
    write_predictions,
)
from tests.adversarial.isolation_forgeries import TOOLS
from tests.adversarial.isolation_hostile import (
    FORWARD_HOSTILE,
    MAY_TIME_OUT,
    PROCESS_HOSTILE,
    STEP_HOSTILE,
)
from tests.support.isolation_tasks import CONV, LION, Goal, write_isolation_task

pytestmark = [pytest.mark.docker, pytest.mark.usefixtures("image_cleanup", "no_leftovers")]


def _evaluate_twice(
    tmp_path: Path, candidates: list[tuple[str, Goal, str]], allowed: dict[str, frozenset[str]]
) -> None:
    """Score ``candidates`` (system, goal, snippet), then resume: both normal, none passes."""
    task_dir = write_isolation_task(tmp_path / "bench")
    lines = [
        (name, goal.index, candidate_for(goal, TOOLS + code)) for name, goal, code in candidates
    ]
    predictions = write_predictions(tmp_path / "hostile.jsonl", task_dir, lines)
    expected = [(name, goal.index) for name, goal, _ in candidates]

    first = run_eval(tmp_path / "bench", [predictions], tmp_path / "out")
    _assert_normal(first, expected, allowed)
    again = run_eval(tmp_path / "bench", [predictions], tmp_path / "out")
    _assert_normal(again, expected, allowed)
    for key in expected:
        assert again.runs[key]["run_key"] == first.runs[key]["run_key"], key
        assert again.runs[key]["started_at"] == first.runs[key]["started_at"], (
            f"{key} ran again on resume"
        )


def _assert_normal(
    evaluation: Evaluation, expected: list[tuple[str, int]], allowed: dict[str, frozenset[str]]
) -> None:
    report = table(evaluation, expected)
    assert evaluation.status == 0 and evaluation.results_written, report
    wrong = not_passed(evaluation, expected, allowed)
    assert not wrong, "\n".join(wrong) + "\n\n" + report


def test_malformed_answers_exceptions_and_state_are_the_candidates_failure(
    tmp_path: Path,
) -> None:
    candidates = [(name, CONV, code) for name, code in FORWARD_HOSTILE.items()]
    candidates += [(name, LION, code) for name, code in STEP_HOSTILE.items()]
    _evaluate_twice(tmp_path, candidates, {})


def test_attacks_on_its_own_process_are_the_candidates_failure(tmp_path: Path) -> None:
    candidates = [(name, CONV, code) for name, code in PROCESS_HOSTILE.items()]
    allowed = {name: FAILED | {"timeout"} for name in MAY_TIME_OUT}
    _evaluate_twice(tmp_path, candidates, allowed)
