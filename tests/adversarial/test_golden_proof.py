"""The golden proof cannot be made to run candidates in the test's process (issue 39).

Scored by ``lmr-author eval`` as a user runs it, on the stand-in task of
``tests/support/proof_tasks.py``:

* a golden run that runs out of time isolated (``smooth``), or fails on state in ``/tmp``
  (``row_norms``), is not proven: its candidates are infra-errors of that eval, named,
  never run in the test's process, and nothing is kept; the next eval (a resume) tries
  again and never finds a downgrade to use: the forgeries that pass only in the test's
  process (with the proof from before issue 39, they did) are still not scored a pass;
* a candidate that changes an input the golden call leaves as it was (zeroes it, so the
  test expects zeros) fails, naming the input, and the test's input is left as it was;
* the golden file with a line-shifting header passes isolated, though its module
  compiles a helper again from its own source at import (TorchScript's way).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.adversarial.isolation_eval import Evaluation, run_eval, table, write_predictions
from tests.support.proof_tasks import GOALS, HEADER, MIXER, NORMS, REPO, SMOOTH, write_proof_task

pytestmark = [pytest.mark.docker, pytest.mark.usefixtures("image_cleanup", "no_leftovers")]

SYSTEMS = ("golden", "forgery", "golden-reformatted")


def _submissions(tmp_path: Path, task_dir: Path) -> list[Path]:
    lines = [("golden", goal.index, goal.golden) for goal in GOALS]
    lines += [("forgery", goal.index, goal.forgery()) for goal in GOALS]
    tmp_path.mkdir(parents=True, exist_ok=True)
    predictions = write_predictions(tmp_path / "predictions.jsonl", task_dir, lines)
    mirrored = tmp_path / "golden-reformatted"
    goal_file = mirrored / task_dir.name / REPO / MIXER.goal_file
    goal_file.parent.mkdir(parents=True)
    goal_file.write_text(HEADER + MIXER.goal_file_with(MIXER.golden))
    return [predictions, mirrored]


def _kept_downgrades() -> list[dict[str, object]]:
    cache = Path(os.environ["XDG_CACHE_HOME"])
    kept = [json.loads(path.read_text()) for path in cache.rglob("golden-proofs/*.json")]
    return [proof for proof in kept if proof.get("isolated") is not True]


def _everything() -> list[tuple[str, int]]:
    return [(system, goal.index) for system in SYSTEMS for goal in GOALS]


def _not_proven(evaluation: Evaluation, index: int, why: str) -> None:
    for system in ("golden", "forgery"):
        run = evaluation.runs[(system, index)]
        described = table(evaluation, _everything())
        assert run["verdict"] == "infra-error", described
        assert run["reason"].startswith("not scored: not proven"), described
        assert why in run["reason"], described
        assert run.get("isolated") is None and not run.get("tests"), described


def test_an_unproven_golden_is_never_a_downgrade_and_forgeries_stay_failed(
    tmp_path: Path,
) -> None:
    task_dir = write_proof_task(tmp_path / "bench")
    submissions = _submissions(tmp_path / "subs", task_dir)

    for _ in range(2):  # an eval, then the next one (a resume redoes its infra-errors)
        evaluation = run_eval(tmp_path / "bench", submissions, tmp_path / "out", timeout_s=20)

        described = table(evaluation, _everything())
        assert evaluation.status == 1 and evaluation.results_written, described
        _not_proven(evaluation, SMOOTH.index, "time limit")
        _not_proven(evaluation, NORMS.index, "PermissionError")
        assert _kept_downgrades() == []
        # The mixer: proven isolated; the reformatted golden passes there; zeroing the
        # inputs the test computes its expected value from fails, the input named.
        for system in ("golden", "golden-reformatted"):
            run = evaluation.runs[(system, MIXER.index)]
            assert (run["verdict"], run.get("isolated")) == ("pass", True), described
        zeroed = evaluation.runs[("forgery", MIXER.index)]
        assert zeroed["verdict"] in ("fail", "error") and zeroed["isolated"], described
        assert (
            "changed its input args[0] ('q'), its input args[1] ('y') in place"
            in (zeroed["reason"])
        ), described
