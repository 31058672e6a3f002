"""Recording keeps what a call changes in place, and refuses what a fixture cannot hold.

An optimizer's ``step`` returns None and updates its parameters and its per-parameter
state (keyed by the parameters themselves): fixtures that keep only the value returned
pass any function that returns None (issue 30's trial: 1 of 21 mutants killed). Here the
recorded outcome holds the parameters and the state after the call, so a wrong update
fails, and a function that changes nothing fails too.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lmr_author.authoring.fixtures import record_fixtures
from lmr_author.authoring.scaffold import render_unit_test
from lmr_author.domain.replay_codec import show_no_work
from lmr_author.util.errors import UserError
from tests.support.optim_repo import DRIVER, write_optim_repo

TEST = "unit_test/unit_test_1.py"


@pytest.fixture
def optim_repo(tmp_path: Path) -> Path:
    return write_optim_repo(tmp_path)


def _record(repo: Path, driver: str = DRIVER) -> list[Path]:
    written = record_fixtures(
        repo, "optim/sign.py", "step", driver, class_name="SignMomentum", unit_test_file=TEST
    )
    (repo / TEST).write_text(
        render_unit_test(
            goal_file="optim/sign.py",
            goal_function="step",
            class_name="SignMomentum",
            unit_test_file=TEST,
        )
    )
    return written


def _run_test(repo: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(repo)}
    return subprocess.run(
        [sys.executable, TEST], cwd=repo, env=env, capture_output=True, text=True, check=False
    )


def _rewrite(repo: Path, old: str, new: str) -> None:
    path = repo / "optim" / "sign.py"
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


def test_what_a_step_changes_in_place_is_recorded_and_compared(optim_repo: Path) -> None:
    written = _record(optim_repo)
    assert len(written) == 3
    expected = optim_repo.parent / "expected_outputs" / "unit_test_1"
    first = json.loads((expected / written[0].name).read_text())
    assert first["value"] is None and list(first["changed"]) == ["self"]
    assert json.loads(written[0].read_text())["watch"] == ["self"]
    assert _run_test(optim_repo).returncode == 0


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ('group["lr"] * np.sign(', 'group["lr"] * ('),  # a wrong update
        ('momentum *= group["beta"]', "pass"),  # the state left behind
        ("for group in self.param_groups:", "for group in []:"),  # nothing done at all
    ],
    ids=["wrong-update", "stale-state", "does-nothing"],
)
def test_a_step_that_changes_the_wrong_things_fails(optim_repo: Path, old: str, new: str) -> None:
    _record(optim_repo)
    _rewrite(optim_repo, old, new)
    failed = _run_test(optim_repo)
    assert failed.returncode != 0
    assert "self after the call differs from what the golden call left" in failed.stderr


def test_the_second_step_reads_the_state_the_first_left(optim_repo: Path) -> None:
    # The state is keyed by the parameter objects the groups hold: replayed, the third
    # call finds its momentum (a replay that lost the identity would start from zero).
    _record(optim_repo)
    _rewrite(optim_repo, "if not state:", "if True:")
    assert _run_test(optim_repo).returncode != 0


def test_a_closure_argument_is_refused_at_recording_and_named(optim_repo: Path) -> None:
    driver = DRIVER.replace("optimizer.step()", "optimizer.step(lambda: 0.0)")
    with pytest.raises(UserError) as caught:
        _record(optim_repo, driver)
    message = str(caught.value)
    assert "call 1 of SignMomentum.step cannot be recorded" in message
    assert "args[0] (closure)" in message and "function" in message


def test_fixtures_that_would_pass_any_none_are_said_to(optim_repo: Path) -> None:
    # Gradients never set: every step skips every parameter, returns None, changes nothing.
    driver = "\n".join(line for line in DRIVER.splitlines() if ".grad =" not in line)
    _record(optim_repo, driver)
    expected = optim_repo.parent / "expected_outputs" / "unit_test_1"
    texts = [path.read_text() for path in sorted(expected.glob("*.json"))]
    assert len(texts) == 3 and show_no_work(texts)
    _record(optim_repo)
    texts = [path.read_text() for path in sorted(expected.glob("*.json"))]
    assert not show_no_work(texts)
