"""Forgeries of a verdict on stand-ins of the published tasks: none may pass (issue 29).

The seven ways a wrong goal function was scored "pass" on the published tasks (the test
file read, the test's frames walked, the comparison patched, the ``testing`` namespace
faked, ``logging.root`` proxied, the harness's reporter used with its token, the
assertions patched and the harness's snapshot overwritten), the token used to make the
run an infra-error, and further ones (custom ``__eq__``/``__bool__``, an ndarray
subclass that always agrees, ``gc`` for anything of the harness), each against the
three stand-in shapes (an optimizer's ``step``, a module's ``forward`` with inline
expected values, a logging-only published test), scored by ``lmr-author eval``: each is
"fail" or "error", never "pass", never an infra-error, and eval ends normally.

Run at call time (the goal function of a predictions JSONL) and at import time (the top
of a whole goal file in a mirrored folder: the test process must not import it).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.adversarial.isolation_eval import (
    Evaluation,
    candidate_for,
    not_passed,
    run_eval,
    table,
    write_mirrored,
    write_predictions,
)
from tests.adversarial.isolation_forgeries import FORGERIES, MODULE_PRELUDES, NUMPY_FORGERIES
from tests.support.isolation_tasks import GOALS, write_isolation_task

pytestmark = [pytest.mark.docker, pytest.mark.usefixtures("image_cleanup", "no_leftovers")]

CONTROLS = ("golden", "masked", "wrong")


def _controls(subs: Path, task_dir: Path) -> list[Path]:
    """The golden, masked and wrong goal files of every implementation, as three systems."""
    return [
        write_mirrored(
            subs,
            name,
            task_dir,
            {
                goal.goal_file: goal.goal_file_with(
                    {"golden": goal.golden, "masked": goal.masked_method, "wrong": goal.wrong}[name]
                )
                for goal in GOALS
            },
        )
        for name in CONTROLS
    ]


def _assert_controls(evaluation: Evaluation, everything: list[tuple[str, int]]) -> None:
    """The stand-ins are faithful: golden passes, masked and wrong do not."""
    for goal in GOALS:
        assert evaluation.verdict("golden", goal.index) == "pass", table(evaluation, everything)
        for name in ("masked", "wrong"):
            assert evaluation.verdict(name, goal.index) in ("fail", "error"), table(
                evaluation, everything
            )


def test_forgeries_in_the_goal_function_never_pass(tmp_path: Path) -> None:
    task_dir = write_isolation_task(tmp_path / "bench")
    subs = tmp_path / "subs"
    lines = []
    for name, snippets in {**FORGERIES, **NUMPY_FORGERIES}.items():
        for goal in GOALS:
            snippet = snippets[0] if goal.kind == "step" else snippets[1]
            if snippet is not None:
                lines.append((f"forge-{name}", goal.index, candidate_for(goal, snippet)))
    predictions = write_predictions(tmp_path / "forgeries.jsonl", task_dir, lines)

    evaluation = run_eval(
        tmp_path / "bench", [*_controls(subs, task_dir), predictions], tmp_path / "out"
    )

    attacks = [(system, index) for system, index, _ in lines]
    everything = [(name, goal.index) for name in CONTROLS for goal in GOALS] + attacks
    assert evaluation.status == 0 and evaluation.results_written, table(evaluation, everything)
    _assert_controls(evaluation, everything)
    wrong = not_passed(evaluation, attacks, {})
    assert not wrong, "\n".join(wrong) + "\n\n" + table(evaluation, everything)


def test_forgeries_at_the_top_of_the_goal_file_never_pass(tmp_path: Path) -> None:
    task_dir = write_isolation_task(tmp_path / "bench")
    subs = tmp_path / "subs"
    systems = [
        write_mirrored(
            subs, "golden", task_dir, {g.goal_file: g.goal_file_with(g.golden) for g in GOALS}
        )
    ]
    for name, prelude in MODULE_PRELUDES.items():
        files = {
            goal.goal_file: prelude + "\n\n" + goal.goal_file_with(goal.wrong) for goal in GOALS
        }
        systems.append(write_mirrored(subs, f"forge-{name}", task_dir, files))

    evaluation = run_eval(tmp_path / "bench", systems, tmp_path / "out")

    attacks = [(f"forge-{name}", goal.index) for name in MODULE_PRELUDES for goal in GOALS]
    everything = [("golden", goal.index) for goal in GOALS] + attacks
    assert evaluation.status == 0 and evaluation.results_written, table(evaluation, everything)
    for goal in GOALS:
        assert evaluation.verdict("golden", goal.index) == "pass", table(evaluation, everything)
    wrong = not_passed(evaluation, attacks, {})
    assert not wrong, "\n".join(wrong) + "\n\n" + table(evaluation, everything)
