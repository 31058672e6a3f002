"""A task whose goal works in place, authored with ``new-task --spec`` and run for real.

``SignMomentum.step`` returns None and updates its parameters and state: the golden
passes isolated (the candidate's changes to the receiver cross back to the test), the
masked file fails, and the mutants of the update are killed because the fixtures hold
the receiver after each call (issue 30: before, 1 of 21 mutants of such a goal died).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lmr_author.cli import main
from lmr_author.domain.task import load_task
from lmr_author.mutation.score import mutation_test
from tests.support.optim_repo import CLASS_NAME, DRIVER, GOAL_FILE, GOAL_FUNCTION, write_optim_repo

pytestmark = [pytest.mark.docker, pytest.mark.slow]

PAPER = """# Sign Momentum

## Method

The update is the sign of the interpolated momentum, $u = \\mathrm{sign}(\\beta m + g)$,
applied with the learning rate; the momentum then accumulates the gradient.
"""


def test_an_in_place_goal_is_authored_verified_and_its_mutants_die(
    tmp_path: Path, docker_client: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = write_optim_repo(tmp_path)
    paper = tmp_path / "paper.md"
    paper.write_text(PAPER, encoding="utf-8")
    spec = {
        "folder_name": "93-SignMomentum",
        "source": str(repo),
        "paper_pdf": str(paper),
        "year": 2024,
        "goals": [
            {
                "goal_file": GOAL_FILE,
                "goal_function": GOAL_FUNCTION,
                "class_name": CLASS_NAME,
                "instruction": "Implement SignMomentum.step (Method).",
                "category": "Training Objectives & Optimization",
                "driver": DRIVER,
            }
        ],
    }
    spec_file = tmp_path / "spec.json"
    spec_file.write_text(json.dumps(spec), encoding="utf-8")
    bench = tmp_path / "bench"
    assert main(["new-task", "--spec", str(spec_file), "--into", str(bench)]) == 0
    out = capsys.readouterr().out
    assert "compared on what it returns and on self" in out
    task_dir = bench / "93-SignMomentum"
    assert main(["validate", "--run", "--json", str(task_dir)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert "not-isolated" not in json.dumps(report)
    (score,) = mutation_test(load_task(task_dir))
    assert score.total >= 5
    # Fixtures of the value returned alone killed none of these; the survivors here are
    # sign(x) division (lr / ±1) and beta terms the driver's few steps cannot tell apart.
    assert score.killed > score.total / 2, [mutant.description for mutant in score.survivors]
