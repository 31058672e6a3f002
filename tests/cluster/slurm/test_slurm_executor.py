"""``eval --executor slurm`` on a real one-node cluster: same keys and verdicts as local,
Ctrl-C cancels the jobs and keeps what finished, a node-side failure is never a verdict.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from lmr_author.eval_loop.backend import DockerBackend
from lmr_author.eval_loop.pool import run_evaluation
from lmr_author.eval_loop.submissions import Submission
from lmr_author.executors.slurm import SlurmBackend
from tests.cluster.slurm.conftest import jobs_of

pytestmark = [
    pytest.mark.docker,
    pytest.mark.slurm,
    pytest.mark.slow,
    pytest.mark.usefixtures("slurm", "no_leftovers"),
]

ROOT = Path(__file__).resolve().parents[3]
BENCHMARK = ROOT / "benchmark"
TASKS = ("02-BLEU", "03-TopP")
SYSTEMS = ("correct", "subtle-bug", "wrong-logic")


def _argv(out: Path, *extra: str) -> list[str]:
    argv = [sys.executable, "-m", "lmr_author", "eval", str(BENCHMARK), "--output", str(out)]
    for task in TASKS:
        argv += ["--task", task]
    for system in SYSTEMS:
        argv += ["-s", str(BENCHMARK / "submissions" / system)]
    return [*argv, "--json", *extra]


def _eval(out: Path, *extra: str) -> dict[str, Any]:
    done = subprocess.run(
        _argv(out, *extra), capture_output=True, text=True, timeout=1200, check=False
    )
    assert done.returncode == 0, done.stderr
    data: dict[str, Any] = json.loads(done.stdout)
    return data


def _by_run(results: dict[str, Any]) -> dict[tuple[str, str, int], dict[str, Any]]:
    return {(r["system"], r["task"], r["implementation"]): r for r in results["runs"]}


def test_slurm_gives_the_local_keys_verdicts_and_accuracies(tmp_path: Path) -> None:
    local = _eval(tmp_path / "local", "--executor", "local")
    remote = _eval(tmp_path / "slurm", "--executor", "slurm", "--workers", "4")

    local_runs, remote_runs = _by_run(local), _by_run(remote)
    assert set(local_runs) == set(remote_runs) and len(local_runs) == 9
    for key, run in local_runs.items():
        other = remote_runs[key]
        assert (other["run_key"], other["verdict"]) == (run["run_key"], run["verdict"]), key
    assert {s: v["accuracy"] for s, v in remote["systems"].items()} == {
        "correct": 1.0,
        "subtle-bug": 0.0,
        "wrong-logic": 0.0,
    }
    assert local["systems"] == remote["systems"]
    assert jobs_of(tmp_path) == []
    # The shared folder is cleaned once every run is read back.
    assert list((tmp_path / "slurm" / "slurm").iterdir()) == []


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGHUP], ids=["ctrl-c", "hangup"])
def test_ctrl_c_cancels_the_jobs_keeps_finished_runs_and_resumes(
    tmp_path: Path, stop: signal.Signals
) -> None:
    """Ctrl-C, or the terminal closing (SIGHUP: a dropped ssh session on a login node)."""
    out = tmp_path / "out"
    argv = _argv(out, "--executor", "slurm", "--workers", "1")
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 600
    while not list(out.glob("runs/*/*/*/run.json")) and time.monotonic() < deadline:
        assert process.poll() is None, process.communicate()
        time.sleep(0.2)
    process.send_signal(stop)
    _, err = process.communicate(timeout=300)

    assert process.returncode == 130, err
    assert "scancel" in err
    assert jobs_of(tmp_path) == []
    kept = {path: path.stat().st_mtime_ns for path in out.glob("runs/*/*/*/run.json")}
    assert 1 <= len(kept) < 9

    resumed = _eval(out, "--executor", "slurm", "--workers", "4")

    assert len(resumed["runs"]) == 9 and not resumed["interrupted"]
    assert {path: path.stat().st_mtime_ns for path in kept} == kept  # not run again
    for run in resumed["runs"]:
        assert run["verdict"] == ("pass" if run["system"] == "correct" else "fail"), run
    assert jobs_of(tmp_path) == []


def test_a_job_that_dies_on_the_node_is_an_infrastructure_error(tmp_path: Path) -> None:
    # The "python" on the node exits at once: no result file, as after a node failure.
    dead = tmp_path / "dead-python"
    dead.write_text("#!/bin/sh\nexit 1\n")
    dead.chmod(0o755)
    backend = SlurmBackend(
        DockerBackend(), tmp_path / "shared", python=str(dead), retries=1, poll_s=0.2
    )
    try:
        results = run_evaluation(
            BENCHMARK,
            [Submission(BENCHMARK / "submissions" / "correct")],
            tmp_path / "out",
            tasks=["03-TopP"],
            backend=backend,
        )
    finally:
        backend.close()

    [run] = results.runs
    assert run.verdict == "infra-error", run
    assert "ended without a result 2 time(s)" in run.reason
    assert not run.counted
    assert jobs_of(tmp_path) == []


def test_a_partition_slurm_does_not_know_is_a_usage_error_before_any_build(
    tmp_path: Path,
) -> None:
    """Said once, by sbatch --test-only, not once per run after the images are built."""
    out = tmp_path / "out"
    argv = _argv(out, "--executor", "slurm", "--partition", "no-such-partition")
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 2, done.stderr
    assert "Slurm refuses --partition=no-such-partition" in done.stderr
    assert "invalid partition" in done.stderr and "sinfo" in done.stderr
    assert not (out / "runs").exists()
    assert jobs_of(tmp_path) == []
