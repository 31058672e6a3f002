"""Where a Slurm job's test processes sit, per container runtime, read from inside jobs
of the real cluster: the test prints its own ``/proc/self/cgroup``.

This cluster confines no job in a cgroup (``proctrack/linuxproc``, ``task/none``), so
the worker is started here the way ``task/cgroup`` starts a job's processes on
cgroups v1: in a memory cgroup ``.../job_<SLURM_JOB_ID>`` (made by the "python" the
array runs, which then execs the real one). What the runtimes then do with the test's
container is theirs: Docker and Podman (``cgroupfs``) create it under the job's cgroup;
under Apptainer the worker makes each run a child of the job's cgroup with the run's
limits (`lmr_author.sandbox.run_cgroup`) and removes it after.
"""

from __future__ import annotations

import os
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lmr_author.eval_loop.backend import DockerBackend
from lmr_author.eval_loop.pool import run_evaluation
from lmr_author.eval_loop.submissions import Submission
from lmr_author.executors.slurm import SlurmBackend
from lmr_author.runtime import engine
from lmr_author.sandbox.apptainer import SIF_CACHE_ENV
from tests.cluster.slurm.conftest import jobs_of
from tests.executors.test_cgroups import PRINT_CGROUP
from tests.support.sandbox_tasks import (
    GOLDEN,
    leftover_containers,
    remove_session_images,
    write_task,
)

pytestmark = [
    pytest.mark.docker,
    pytest.mark.slurm,
    pytest.mark.slow,
    pytest.mark.usefixtures("slurm", "image_cleanup"),
]

CGROUPS = Path("/sys/fs/cgroup")

#: The job's "python": into the job's memory cgroup first, as task/cgroup would.
CONFINED_PYTHON = """\
#!/bin/sh
job={root}/slurm/uid_0/job_$SLURM_JOB_ID
mkdir -p {memory}$job && echo $$ > {memory}$job/cgroup.procs || exit 1
exec {python} "$@"
"""


@pytest.fixture
def job_root() -> Iterator[str]:
    """A cgroup of this test's jobs, removed after (with what the engines made in it)."""
    if not (CGROUPS / "memory").is_dir() or not os.access(CGROUPS / "memory", os.W_OK):
        pytest.skip("needs cgroups v1 with a writable memory hierarchy (as root)")
    root = f"/lmr-test-{uuid.uuid4().hex[:8]}"
    yield root
    for controller in CGROUPS.iterdir():
        made = controller / root.lstrip("/")
        if made.is_dir():
            for folder in sorted(made.glob("**/"), key=lambda p: len(p.parts), reverse=True):
                folder.rmdir()


def _memory_cgroup(log: str) -> str:
    for line in log.splitlines():
        _, controllers, path = [*line.split(":", 2), "", ""][:3]
        if "memory" in controllers.split(","):
            return path
    raise AssertionError(f"no memory cgroup in {log!r}")


@pytest.mark.parametrize("runtime", ["docker", "podman", "apptainer"])
def test_where_the_tests_processes_sit_inside_a_job(
    tmp_path: Path, runtime: str, job_root: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    bench = tmp_path / "bench"
    task = write_task(bench, tag=f"cg{runtime[:3]}", test_source=PRINT_CGROUP)
    candidate = tmp_path / "subs" / "golden" / task.name / "calc_repo" / "calc.py"
    candidate.parent.mkdir(parents=True)
    candidate.write_text(GOLDEN)
    python = tmp_path / "confined-python"
    python.write_text(
        CONFINED_PYTHON.format(root=job_root, memory=CGROUPS / "memory", python=sys.executable)
    )
    python.chmod(0o755)
    monkeypatch.setenv(SIF_CACHE_ENV, str(tmp_path / "sif"))  # the job inherits it
    before = engine.selected_runtime()
    engine.use_runtime(runtime)
    client: Any = None
    try:
        client = engine.get_client()
        backend = SlurmBackend(DockerBackend(), tmp_path / "shared", python=str(python))
        try:
            results = run_evaluation(
                bench, [Submission(candidate.parents[2])], tmp_path / "out", backend=backend
            )
        finally:
            backend.close()
        [run] = results.runs
        assert run.verdict == "pass", run.reason
        [log] = (tmp_path / "out").glob("runs/**/*.log")
        where = _memory_cgroup(log.read_text())
    finally:
        engine.use_runtime(before)
        if runtime == "podman" and client is not None:
            for container in leftover_containers(client):
                client.api.remove_container(container["Id"], force=True)
            remove_session_images(client)

    job = f"{job_root}/slurm/uid_0/job_"
    assert where.startswith(job), where
    if runtime == "apptainer":  # a child of the job's cgroup with the run's limits
        assert where.split("/")[-1].startswith("lmr-run-"), where
        memory = CGROUPS / "memory" / job_root.lstrip("/")
        assert list(memory.glob("slurm/uid_0/job_*/lmr-run-*")) == []  # gone after the run
    assert jobs_of(tmp_path) == []
