"""Apptainer runs inside a Slurm job: each ``apptainer exec`` in a child of the job's
cgroup with the run's limits, and the same verdicts as with Apptainer's own flags.

The job's cgroup is made here the way ``task/cgroup`` makes it on cgroups v1 (a memory
cgroup ``.../slurm/uid_0/job_<id>``) and named to the sandbox as the worker names it
(`use_job_cgroups`); tests/cluster/slurm/test_job_cgroups.py does the same from inside
real jobs. Each case runs the same candidate in and out of the job and compares.
"""

from __future__ import annotations

import os
import textwrap
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lmr_author.domain.task import Task
from lmr_author.images.task_images import ImageRef
from lmr_author.sandbox.limits import Limits
from lmr_author.sandbox.run_cgroup import proc_cgroups, use_job_cgroups
from lmr_author.sandbox.run_result import ImplementationRun
from tests.adversarial.exploits import RIGHT_ADD, candidate
from tests.support.sandbox_tasks import run_candidate

pytestmark = [pytest.mark.docker, pytest.mark.apptainer, pytest.mark.slow]

CGROUPS = Path("/sys/fs/cgroup")
#: The candidate says where it runs before anything else.
WHERE = "print('CGROUP', open('/proc/self/cgroup').read().replace(chr(10), ' '), flush=True)\n"


@pytest.fixture
def job() -> Iterator[str]:
    """A job's memory cgroup, removed after; fails the test if a run left a child in
    it (or in the hierarchies where the children sit beside this process)."""
    if not os.access(CGROUPS / "memory", os.W_OK) or os.geteuid() != 0:
        pytest.skip("needs cgroups v1 with a writable memory hierarchy (as root)")
    root = f"/lmr-test-{uuid.uuid4().hex[:8]}"
    path = f"{root}/slurm/uid_0/job_4242"
    (CGROUPS / "memory" / path.lstrip("/")).mkdir(parents=True)
    try:
        yield path
        assert _children(path) == []
    finally:
        use_job_cgroups(None)
        for made in sorted((CGROUPS / "memory").glob(f"{root.lstrip('/')}/**/"), reverse=True):
            made.rmdir()


def _children(job: str) -> list[Path]:
    """Run cgroups of this process: under the job (memory), beside it (pids, cpu)."""
    own = proc_cgroups(Path("/proc/self/cgroup").read_text())
    pattern = f"lmr-run-{os.getpid()}-*"
    found = list((CGROUPS / "memory" / job.lstrip("/")).glob(pattern))
    for controller in ("pids", "cpu"):
        found += (CGROUPS / controller / own[controller].lstrip("/")).glob(pattern)
    return found


def _run(
    pair: tuple[Task, ImageRef], body: str, client: Any, limits: Limits, **options: Any
) -> ImplementationRun:
    task, image = pair
    code = candidate(WHERE + textwrap.dedent(body), RIGHT_ADD)
    return run_candidate(
        task, task.implementations[0], code, image, client, limits=limits, **options
    )


def _in_and_out(
    pair: tuple[Task, ImageRef], body: str, client: Any, limits: Limits, job: str, **kw: Any
) -> tuple[ImplementationRun, ImplementationRun]:
    outside = _run(pair, body, client, limits, **kw)
    use_job_cgroups({"memory": job})
    try:
        inside = _run(pair, body, client, limits, **kw)
    finally:
        use_job_cgroups(None)
    return outside, inside


def _where(run: ImplementationRun) -> dict[str, str]:
    log = run.verdicts[0].log
    assert "CGROUP" in log, log
    text = log.split("CGROUP", 1)[1].split("\n", 1)[0]
    return proc_cgroups(text.replace(" ", "\n"))


@pytest.mark.parametrize("isolated", [True, False])
def test_a_run_in_a_job_sits_in_a_child_of_the_jobs_cgroup(
    unittest_task: tuple[Task, ImageRef], docker_client: Any, job: str, isolated: bool
) -> None:
    outside, inside = _in_and_out(
        unittest_task, "", docker_client, Limits(timeout_s=60), job, isolated=isolated
    )
    # The runs' own reasons (an infrastructure error has no test verdict to read).
    assert outside.verdict == inside.verdict == "pass", (outside.reason, inside.reason)
    assert _where(outside)["memory"].startswith("/apptainer/")
    where = _where(inside)
    assert where["memory"].startswith(f"{job}/lmr-run-"), where
    for controller in ("pids", "cpu"):  # beside this process's own, not Apptainer's
        assert where[controller].rsplit("/", 1)[-1].startswith("lmr-run-"), where
    assert where["cpuacct"] == proc_cgroups(Path("/proc/self/cgroup").read_text())["cpuacct"]


def test_running_out_of_memory_in_a_job_is_the_same_verdict(
    unittest_task: tuple[Task, ImageRef], docker_client: Any, job: str
) -> None:
    hog = "blocks = []\nwhile True:\n    blocks.append(bytearray(16 * 1024 * 1024))\n"
    limits = Limits(memory_mb=96, pids=64, timeout_s=60.0)
    for isolated in (True, False):
        outside, inside = _in_and_out(
            unittest_task, hog, docker_client, limits, job, isolated=isolated
        )
        assert inside.verdict == outside.verdict == "error", inside.verdicts[0].reason
        assert inside.verdicts[0].reason == outside.verdicts[0].reason
        assert "killed" in inside.verdicts[0].reason or "ended" in inside.verdicts[0].reason
        assert _where(inside)["memory"].startswith(f"{job}/lmr-run-")


def test_a_fork_bomb_in_a_job_meets_the_same_process_limit(
    unittest_task: tuple[Task, ImageRef], docker_client: Any, job: str
) -> None:
    # The children sleep: the process limit is what is measured, whatever the load.
    bomb = (
        "import os, time\nchildren = 0\ntry:\n    while True:\n        if os.fork() == 0:\n"
        "            time.sleep(600)\n            os._exit(0)\n        children += 1\n"
        "except OSError as error:\n"
        "    print('fork refused after', children, 'children', flush=True)\n"
        "    raise SystemExit(3)\n"
    )
    limits = Limits(memory_mb=256, pids=16, timeout_s=60.0)
    outside, inside = _in_and_out(unittest_task, bomb, docker_client, limits, job)
    assert inside.verdict == outside.verdict, inside.verdicts[0].reason
    assert inside.verdict != "pass"
    counts = [
        int(run.verdicts[0].log.split("fork refused after")[1].split()[0])
        for run in (outside, inside)
    ]
    # The same processes count against the limit: Apptainer's starter does in neither.
    assert counts[0] == counts[1] < 16, counts
    assert _where(inside)["pids"].rsplit("/", 1)[-1].startswith("lmr-run-")


def test_a_run_that_times_out_leaves_no_cgroup(
    unittest_task: tuple[Task, ImageRef], docker_client: Any, job: str
) -> None:
    """The job fixture fails the test if a child is left; a detached process that
    outlives the test's (its own session) goes with the child."""
    body = (
        "import os, subprocess, time\n"
        "subprocess.Popen(['sleep', '600'], start_new_session=True)\n"
        "while True:\n    time.sleep(1)\n"
    )
    use_job_cgroups({"memory": job})
    run = _run(unittest_task, body, docker_client, Limits(timeout_s=3.0), isolated=False)
    assert run.verdict == "timeout", run.verdicts[0].reason
    assert _children(job) == []


def test_a_candidate_in_a_job_cannot_touch_its_cgroup(
    unittest_task: tuple[Task, ImageRef], docker_client: Any, job: str
) -> None:
    """Raising its limits or leaving its cgroup needs the cgroup files: not in the
    container's /sys; a user namespace of its own may mount its cgroup namespace's view
    of them, but they are root's and read-only to the test's user."""
    body = """\
        import ctypes, os
        libc = ctypes.CDLL(None, use_errno=True)
        mine = {}
        for line in open("/proc/self/cgroup"):
            number, names, path = line.rstrip("\\n").split(":", 2)
            for name in names.split(","):
                mine[name] = path
        def attempt(path, data=None):
            try:
                if data is None:
                    os.mkdir(path)
                else:
                    with open(path, "w") as handle:
                        handle.write(data)
                print("WROTE", path, flush=True)
            except OSError as error:
                print("DENIED", path, type(error).__name__, flush=True)
        attempt(f"/sys/fs/cgroup/memory{mine['memory']}/memory.limit_in_bytes", "-1")
        attempt("/sys/fs/cgroup/memory/cgroup.procs", str(os.getpid()))
        CLONE_NEWNS, CLONE_NEWUSER, CLONE_NEWCGROUP = 0x20000, 0x10000000, 0x02000000
        if libc.unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWCGROUP) == 0:
            kinds = ((b"cgroup", b"memory"), (b"cgroup", b"pids"), (b"cgroup", b"cpu"))
            for index, (kind, options) in enumerate(kinds + ((b"cgroup2", None),)):
                where = f"/tmp/cg{index}"
                os.makedirs(where)
                if libc.mount(b"none", where.encode(), kind, 0, options) != 0:
                    continue
                print("MOUNTED", kind, options, flush=True)
                for name in ("memory.limit_in_bytes", "memory.memsw.limit_in_bytes",
                             "pids.max", "cpu.cfs_quota_us", "memory.max", "pids.max"):
                    if os.path.exists(f"{where}/{name}"):
                        attempt(f"{where}/{name}", "-1")
                for name in ("cgroup.procs", "tasks", "cgroup.subtree_control"):
                    if os.path.exists(f"{where}/{name}"):
                        attempt(f"{where}/{name}", str(os.getpid()))
                attempt(f"{where}/escape")
        print("ATTEMPTS DONE", flush=True)
        """
    limits = Limits(memory_mb=256, pids=64, timeout_s=60.0)
    use_job_cgroups({"memory": job})
    run = _run(unittest_task, body, docker_client, limits, isolated=False)
    log = run.verdicts[0].log
    assert "ATTEMPTS DONE" in log and "WROTE" not in log, log
    assert log.count("DENIED") >= 2, log
    assert _where(run)["memory"].startswith(f"{job}/lmr-run-")
