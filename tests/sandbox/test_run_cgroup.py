"""An Apptainer run's child cgroup: where it goes on cgroups v1 and v2 (from sample
/proc/self/cgroup and mountinfo texts), what its files get, and, on this machine's
cgroups v1 as root, a real child made, checked, joined and removed."""

from __future__ import annotations

import os
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from lmr_author.sandbox.limits import Limits
from lmr_author.sandbox.run_cgroup import (
    CgroupUnusable,
    RunCgroup,
    cgroup_mounts,
    child_folders,
    limit_files,
    proc_cgroups,
    run_cgroup,
    still_running,
    use_job_cgroups,
)

V1_MOUNTINFO = """\
31 23 0:28 / /sys/fs/cgroup ro,nosuid - tmpfs tmpfs ro,mode=755
32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids
40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,xattr,name=systemd
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
"""
V1_SELF = """\
12:pids:/user.slice/user-1000.slice/session-3.scope
7:cpu,cpuacct:/user.slice
4:memory:/slurm/uid_1000/job_4242/step_batch/task_0
1:name=systemd:/user.slice/user-1000.slice/session-3.scope
0::/user.slice/user-1000.slice/session-3.scope
"""
V2_MOUNTINFO = "25 1 0:22 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n"
V2_SELF = "0::/system.slice/slurmstepd.scope/job_77/step_batch/user/task_0\n"


def test_v1_the_child_is_under_the_jobs_memory_cgroup_and_beside_this_process_elsewhere() -> None:
    folders = child_folders(
        {"memory": "/slurm/uid_1000/job_4242"},
        proc_cgroups(V1_SELF),
        cgroup_mounts(V1_MOUNTINFO),
        "lmr-run-1",
    )
    assert folders == {
        "memory": Path("/sys/fs/cgroup/memory/slurm/uid_1000/job_4242/lmr-run-1"),
        "pids": Path("/sys/fs/cgroup/pids/user.slice/user-1000.slice/session-3.scope/lmr-run-1"),
        "cpu": Path("/sys/fs/cgroup/cpu,cpuacct/user.slice/lmr-run-1"),
    }


def test_v1_a_controller_the_job_has_is_the_jobs() -> None:
    job = {"memory": "/slurm/uid_1/job_5", "pids": "/slurm/uid_1/job_5"}
    folders = child_folders(job, proc_cgroups(V1_SELF), cgroup_mounts(V1_MOUNTINFO), "c")
    assert folders is not None
    assert folders["pids"] == Path("/sys/fs/cgroup/pids/slurm/uid_1/job_5/c")


def test_v2_the_child_is_under_the_jobs_cgroup_for_every_controller() -> None:
    job = {"": "/system.slice/slurmstepd.scope/job_77"}
    folders = child_folders(job, proc_cgroups(V2_SELF), cgroup_mounts(V2_MOUNTINFO), "c")
    where = Path("/sys/fs/cgroup/system.slice/slurmstepd.scope/job_77/c")
    assert folders == {"memory": where, "pids": where, "cpu": where}


def test_a_mount_of_part_of_the_hierarchy_is_followed_or_refused() -> None:
    # A container's view: the memory hierarchy mounted from /docker/abc, path escaped.
    mounts = cgroup_mounts(
        "35 31 0:32 /docker/abc /sys/fs/cgroup/my\\040memory rw - cgroup cgroup rw,memory\n"
        "39 31 0:36 / /sys/fs/cgroup/pids rw - cgroup cgroup rw,pids\n"
        "32 31 0:29 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu\n"
    )
    own = {"pids": "/", "cpu": "/"}
    folders = child_folders({"memory": "/docker/abc/job_3"}, own, mounts, "c")
    assert folders is not None
    assert folders["memory"] == Path("/sys/fs/cgroup/my memory/job_3/c")
    assert child_folders({"memory": "/other/job_3"}, own, mounts, "c") is None


def test_no_child_without_a_job_or_a_controller() -> None:
    own, mounts = proc_cgroups(V1_SELF), cgroup_mounts(V1_MOUNTINFO)
    assert child_folders({}, own, mounts, "c") is None
    without_pids = [mount for mount in mounts if "pids" not in mount.controllers]
    assert child_folders({"memory": "/j/job_1"}, own, without_pids, "c") is None
    # A job on cgroups v2, but no unified hierarchy mounted.
    assert child_folders({"": "/job_1"}, own, without_pids[:3], "c") is None


def test_the_files_get_apptainers_values() -> None:
    limits = Limits(memory_mb=96, cpus=0.5, pids=16)
    memory = str(96 * 1024 * 1024)
    assert limit_files(limits, unified=False) == {
        "memory": [("memory.limit_in_bytes", memory), ("memory.memsw.limit_in_bytes", memory)],
        "pids": [("pids.max", "16")],
        "cpu": [("cpu.cfs_period_us", "100000"), ("cpu.cfs_quota_us", "50000")],
    }
    assert limit_files(limits, unified=True) == {
        "memory": [("memory.max", memory), ("memory.swap.max", "0")],
        "pids": [("pids.max", "16")],
        "cpu": [("cpu.max", "50000 100000")],
    }


CGROUPS = Path("/sys/fs/cgroup")


@pytest.fixture
def job() -> Iterator[str]:
    """A made-up job's memory cgroup on this machine (cgroups v1, as root)."""
    if os.geteuid() != 0 or not os.access(CGROUPS / "memory", os.W_OK):
        pytest.skip("needs cgroups v1 with a writable memory hierarchy (as root)")
    if not (CGROUPS / "pids").is_dir() or not (CGROUPS / "cpu").is_dir():
        pytest.skip("needs the pids and cpu hierarchies of cgroups v1")
    root = CGROUPS / "memory" / f"lmr-test-{uuid.uuid4().hex[:8]}"
    (root / "job_9").mkdir(parents=True)
    use_job_cgroups({"memory": f"/{root.name}/job_9"})
    try:
        yield f"/{root.name}/job_9"
    finally:
        use_job_cgroups(None)
        (root / "job_9").rmdir()
        root.rmdir()


def test_a_real_child_carries_the_limits_and_goes_with_its_processes(job: str) -> None:
    limits = Limits(memory_mb=64, cpus=0.25, pids=12)
    with run_cgroup(limits, test_uid=65534) as cgroup:
        assert cgroup is not None
        memory = cgroup.folders["memory"]
        assert memory.parent == CGROUPS / "memory" / job.lstrip("/")
        assert (memory / "memory.limit_in_bytes").read_text().strip() == str(64 << 20)
        if (memory / "memory.memsw.limit_in_bytes").exists():
            assert (memory / "memory.memsw.limit_in_bytes").read_text().strip() == str(64 << 20)
        assert (cgroup.folders["pids"] / "pids.max").read_text().strip() == "12"
        assert (cgroup.folders["cpu"] / "cpu.cfs_quota_us").read_text().strip() == "25000"
        for folder in cgroup.distinct:  # root's, read-only to everyone else
            for entry in [folder, *folder.iterdir()]:
                assert entry.stat().st_uid == 0 and not entry.stat().st_mode & 0o022, entry
        # A process that left its session: still removed with the child.
        sleeper = subprocess.Popen(["sleep", "600"], start_new_session=True)
        cgroup.admit(sleeper.pid)
        assert cgroup.holds(sleeper.pid)
    assert sleeper.wait(timeout=30) == -9
    assert not any(folder.exists() for folder in cgroup.distinct)


def test_a_child_the_tests_user_could_write_is_not_used(job: str) -> None:
    """Made as root, its files are root's: a test running as root could raise its own
    limits there, so Apptainer's flags (a cgroup it cannot reach) are used instead."""
    with run_cgroup(Limits(), test_uid=0) as cgroup:
        assert cgroup is None
    assert list((CGROUPS / "memory" / job.lstrip("/")).glob("lmr-run-*")) == []


def test_a_limit_the_kernel_will_not_take_means_no_child(job: str) -> None:
    parent = CGROUPS / "cpu" / "lmr-test-cap"
    parent.mkdir(exist_ok=True)
    try:
        (parent / "cpu.cfs_quota_us").write_text("10000")  # the parent allows 0.1 CPU
        cgroup = RunCgroup(
            {
                "memory": CGROUPS / "memory" / job.lstrip("/") / "lmr-run-x",
                "pids": CGROUPS / "pids" / "lmr-run-x",
                "cpu": parent / "lmr-run-x",
            },
            Limits(cpus=2.0),
            unified=False,
        )
        with pytest.raises(CgroupUnusable):
            cgroup.make(test_uid=65534)
        cgroup.remove()
        assert not any(folder.exists() for folder in cgroup.distinct)
    finally:
        parent.rmdir()


def test_outside_a_job_there_is_no_child() -> None:
    use_job_cgroups(None)
    with run_cgroup(Limits(), test_uid=65534) as cgroup:
        assert cgroup is None


def test_a_process_that_ended_is_not_left_out_of_the_child() -> None:
    """The container's short-lived processes may end between the listing and the check
    (under load): ended or a zombie is not a process left outside the child."""
    ended = subprocess.Popen(["true"])
    deadline = time.monotonic() + 30
    while still_running(ended.pid) and time.monotonic() < deadline:
        time.sleep(0.01)  # until it is a zombie (not reaped yet)
    assert Path(f"/proc/{ended.pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    assert not still_running(ended.pid)
    ended.wait()
    assert not still_running(ended.pid)
    running = subprocess.Popen(["sleep", "30"])
    try:
        assert still_running(running.pid)
    finally:
        running.kill()
        running.wait()
