"""``validate --run [--mutants] --executor slurm`` on a real one-node cluster: the same
findings and mutation scores as locally, the mutants of an implementation in ONE array,
nothing left in the queue or the shared folder."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.cluster.slurm.conftest import jobs_of
from tests.support.sandbox_tasks import GOLDEN, write_task

pytestmark = [
    pytest.mark.docker,
    pytest.mark.slurm,
    pytest.mark.slow,
    pytest.mark.usefixtures("slurm", "no_leftovers", "image_cleanup"),
]

#: ``* 1`` makes one mutant (drop the right operand of Multiply) equivalent: a survivor.
SCALED = GOLDEN.replace("return a + b", "return (a + b) * 1")
LAX_TEST = "from calc import add\nprint(add(1, 2))\n"
#: Only the proof's rules: these tiny tasks lack a paper, which static rules would report.
RUN_RULES = "--select=golden-fails,test-does-not-discriminate,flaky,infra"


def _validate(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "lmr_author", "validate", RUN_RULES, *argv],
        capture_output=True,
        text=True,
        timeout=1200,
        check=False,
    )


def _findings(done: subprocess.CompletedProcess[str]) -> list[tuple[str, str, str, str]]:
    data: dict[str, Any] = json.loads(done.stdout)
    return sorted(
        (task["task"], finding["rule"], finding["file"], finding["message"])
        for task in data["tasks"]
        for finding in task["findings"]
    )


def test_validate_run_finds_the_same_through_slurm(tmp_path: Path) -> None:
    bench = tmp_path / "bench"
    write_task(bench, tag="vsok")
    write_task(bench, tag="vslax", test_source=LAX_TEST)
    write_task(bench, tag="vsbad", golden=GOLDEN.replace("a + b", "a * b"))
    shared = tmp_path / "shared"

    local = _validate(str(bench), "--run", "--json", "--timeout", "60")
    remote = _validate(
        str(bench), "--run", "--json", "--timeout", "60", "--executor", "slurm",
        "--slurm-dir", str(shared),
    )  # fmt: skip

    assert local.returncode == remote.returncode == 1, remote.stderr
    rules = {(task.split("-")[1], rule) for task, rule, _, _ in _findings(local)}
    assert rules == {("Sbxvslax", "test-does-not-discriminate"), ("Sbxvsbad", "golden-fails")}
    assert _findings(remote) == _findings(local)
    # Each implementation: the golden run, then the masked and second golden runs together;
    # a golden code that fails isolated runs once more in the test's process (vsbad).
    arrays = [int(n) for n in re.findall(r"(\d+) arrays", remote.stderr)]
    assert max(arrays) == 7, remote.stderr
    assert jobs_of(tmp_path) == []
    assert list(shared.iterdir()) == []


def test_mutants_through_slurm_score_as_locally_in_one_array(tmp_path: Path) -> None:
    bench = tmp_path / "bench"
    write_task(bench, tag="vsmut", golden=SCALED)
    shared = tmp_path / "shared"

    local = _validate(str(bench), "--run", "--mutants", "--timeout", "60")
    remote = _validate(
        str(bench), "--run", "--mutants", "--timeout", "60", "--executor", "slurm",
        "--slurm-dir", str(shared),
    )  # fmt: skip

    assert local.returncode == remote.returncode == 0, remote.stderr
    scores = [line for line in local.stdout.splitlines() if "mutation score" in line]
    assert len(scores) == 1 and "not run" not in scores[0], local.stdout
    assert "survivor" in local.stdout and "drop the right operand of Multiply" in local.stdout
    assert remote.stdout == local.stdout
    # Golden, then masked + golden again, then every mutant at once: three arrays.
    assert max(int(n) for n in re.findall(r"(\d+) arrays", remote.stderr)) == 3
    assert "mutant" in remote.stderr and "submitted to Slurm" in remote.stderr
    assert jobs_of(tmp_path) == []
    assert list(shared.iterdir()) == []


@pytest.mark.parametrize(
    "stop", [signal.SIGINT, signal.SIGHUP, signal.SIGTERM], ids=["ctrl-c", "hangup", "term"]
)
def test_ctrl_c_cancels_validates_jobs(tmp_path: Path, stop: signal.Signals) -> None:
    bench = tmp_path / "bench"
    write_task(bench, tag="vsint", golden=SCALED)
    shared = tmp_path / "shared"
    argv = [sys.executable, "-m", "lmr_author", "validate", RUN_RULES, str(bench), "--run"]
    argv += ["--mutants", "--executor", "slurm", "--slurm-dir", str(shared)]
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 600
    # The masked and second golden runs' array: the proof's first array is done.
    while not list(shared.glob("*/array-2")) and time.monotonic() < deadline:
        assert process.poll() is None, process.communicate()
        time.sleep(0.1)
    process.send_signal(stop)
    _, err = process.communicate(timeout=300)

    assert process.returncode == 130, err
    assert "interrupted" in err
    assert jobs_of(tmp_path) == []
    assert list(shared.iterdir()) == []
