"""What a goal function can see of the side that judges it: nothing (issue 29).

Three probes run as the module stand-in's ``forward``: one looks for the test file, the
fixtures, the test's logs, the test process in ``/proc``, the harness's files, the golden
files and the test's text anywhere on the file system; one searches ``gc`` for the tests,
the test file's code, its log handler, the harness's reporter and watch; one walks the
call stack. A probe can tell what it found only through its answer (every element
``1000 + bits``), which the test prints as ``output_mean``: it must be 1000 (nothing
found), and the probe's run must be a plain failure.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.adversarial.isolation_eval import (
    candidate_for,
    not_passed,
    run_eval,
    table,
    write_predictions,
)
from tests.adversarial.isolation_hostile import PROBES, found_by
from tests.support.isolation_tasks import CONV, write_isolation_task

pytestmark = [pytest.mark.docker, pytest.mark.usefixtures("image_cleanup", "no_leftovers")]


def test_the_goal_function_finds_nothing_of_the_test_side(tmp_path: Path) -> None:
    task_dir = write_isolation_task(tmp_path / "bench")
    lines = [
        (name, CONV.index, candidate_for(CONV, snippet)) for name, (snippet, _) in PROBES.items()
    ]
    predictions = write_predictions(tmp_path / "probes.jsonl", task_dir, lines)

    evaluation = run_eval(tmp_path / "bench", [predictions], tmp_path / "out")

    probes = [(name, CONV.index) for name in PROBES]
    report = table(evaluation, probes)
    assert evaluation.status == 0 and evaluation.results_written, report
    assert not not_passed(evaluation, probes, {}), report
    seen = {
        name: found_by(evaluation.reason(name, CONV.index), meanings)
        for name, (_, meanings) in PROBES.items()
    }
    assert seen == {name: [] for name in PROBES}, f"{seen}\n\n{report}"
