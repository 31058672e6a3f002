from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from lmr_author.authoring.dockerfile import render_dockerfile
from lmr_author.authoring.fixtures import record_fixtures
from lmr_author.authoring.scaffold import render_unit_test
from lmr_author.util.errors import UserError

DRIVER = (
    "from toy.losses import margin_loss\nfor b in (0.1, 0.5, 1.0, 2.0):\n"
    "    margin_loss([1.0, 2.0], [0.5, 3.0], beta=b)\n"
)


def _run_test(repo: Path, test_file: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(repo)}
    return subprocess.run(
        [sys.executable, test_file], cwd=repo, env=env, capture_output=True, text=True, check=False
    )


def test_recorded_fixtures_make_a_test_that_passes_on_golden_and_fails_on_wrong(
    toy_repo: Path,
) -> None:
    written = record_fixtures(toy_repo, "toy/losses.py", "margin_loss", DRIVER)
    # Every call is a fixture: the 4th is no longer dropped.
    assert [p.name for p in written] == [f"margin_loss_{n}.json" for n in range(1, 5)]
    test_file = "unit_test/unit_test_1.py"
    (toy_repo / test_file).write_text(
        render_unit_test(
            goal_file="toy/losses.py", goal_function="margin_loss", unit_test_file=test_file
        )
    )
    assert _run_test(toy_repo, test_file).returncode == 0
    losses = toy_repo / "toy" / "losses.py"
    losses.write_text(losses.read_text().replace("total / len(chosen)", "total"))
    failed = _run_test(toy_repo, test_file)
    assert failed.returncode != 0
    assert "expected" in failed.stderr


def test_method_fixtures_record_self(toy_repo: Path) -> None:
    driver = "from toy.losses import Scorer\nScorer(2.0).score([1, 2, 3])\n"
    test_file = "unit_test/unit_test_2.py"
    record_fixtures(
        toy_repo, "toy/losses.py", "score", driver, class_name="Scorer", unit_test_file=test_file
    )
    (toy_repo / test_file).write_text(
        render_unit_test(
            goal_file="toy/losses.py",
            goal_function="score",
            class_name="Scorer",
            unit_test_file=test_file,
        )
    )
    assert _run_test(toy_repo, test_file).returncode == 0


def test_driver_that_never_calls_the_function(toy_repo: Path) -> None:
    with pytest.raises(UserError, match="never called margin_loss"):
        record_fixtures(toy_repo, "toy/losses.py", "margin_loss", "x = 1\n")


def test_failing_driver_shows_its_error(toy_repo: Path) -> None:
    with pytest.raises(UserError, match="ZeroDivisionError"):
        record_fixtures(toy_repo, "toy/losses.py", "margin_loss", "1 / 0\n")


def test_dockerfile_names_the_repo_folder() -> None:
    text = render_dockerfile("toy-repo")
    assert "ARG DIR=toy-repo" in text
    assert "{repo_folder_name}" not in text
    assert text.splitlines()[2].startswith("FROM python:3.11-slim")
