"""Array elements as workers on a real cluster: a worker killed in the middle of a run
(SIGKILL: no clean-up of its own, as on a node failure or an OOM kill) leaves that run
to be submitted again and run once more, and the evaluation counts it once."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.cluster.slurm.conftest import jobs_of
from tests.support.sandbox_tasks import ASSERT_TEST, GOLDEN, leftover_containers, write_task

pytestmark = [
    pytest.mark.docker,
    pytest.mark.slurm,
    pytest.mark.slow,
    pytest.mark.usefixtures("slurm", "image_cleanup"),
]

SLOW_TEST = ASSERT_TEST + "import time\ntime.sleep(8)\n"

RECORDER = """\
#!/bin/sh
echo "$*" >> {log}
exec {real} "$@"
"""


def _worker_of(folder: Path) -> int | None:
    """The pid of the worker running ``folder``'s array (its command line names it)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"lmr_author.executors.worker" in argv and str(folder).encode() in argv:
            return int(entry.name)
    return None


def _wait_for(what: Any, process: subprocess.Popen[str], patience_s: float = 600) -> Any:
    deadline = time.monotonic() + patience_s
    while not (found := what()):
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.1)
    return found


def test_a_run_whose_worker_is_killed_runs_again_and_counts_once(
    tmp_path: Path, docker_client: Any
) -> None:
    bench = tmp_path / "bench"
    task = write_task(bench, tag="wkill", test_source=SLOW_TEST)
    candidate = tmp_path / "subs" / "golden" / task.name / "calc_repo" / "calc.py"
    candidate.parent.mkdir(parents=True)
    candidate.write_text(GOLDEN)
    real = subprocess.run(["sh", "-c", "command -v sbatch"], capture_output=True, text=True)
    log = tmp_path / "sbatch.log"
    wrapper = tmp_path / "bin" / "sbatch"
    wrapper.parent.mkdir()
    wrapper.write_text(RECORDER.format(log=log, real=real.stdout.strip()))
    wrapper.chmod(0o755)
    env = dict(os.environ, PATH=f"{wrapper.parent}:{os.environ['PATH']}")
    out = tmp_path / "out"
    argv = [sys.executable, "-m", "lmr_author", "eval", str(bench), "--output", str(out)]
    argv += ["-s", str(candidate.parents[2]), "--executor", "slurm", "--json"]
    process = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )
    try:
        [claim] = _wait_for(lambda: list(out.glob("slurm/lmr-eval-*/array-1/0.claim")), process)
        worker = _wait_for(lambda: _worker_of(claim.parent), process)
        # Mid-run: its test's container is up.
        _wait_for(lambda: leftover_containers(docker_client), process)
        os.kill(worker, signal.SIGKILL)
        said, err = process.communicate(timeout=900)
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
            process.communicate(timeout=300)

    assert process.returncode == 0, err
    results = json.loads(said)
    [run] = results["runs"]  # once, not once per attempt
    assert (run["verdict"], run["executor"]) == ("pass", "slurm"), run
    assert results["systems"]["golden"]["accuracy"] == 1.0
    submitted = [line for line in log.read_text().splitlines() if "--test-only" not in line]
    assert len(submitted) == 2  # the first array, then the run again in a second
    assert jobs_of(tmp_path) == []
    # What SIGKILL leaves: the killed run's container (the next evaluation's orphan
    # sweep removes it, its owner being gone); the rerun's was removed.
    left = leftover_containers(docker_client)
    assert len(left) <= 1
    for container in left:
        docker_client.api.remove_container(container["Id"], force=True)
