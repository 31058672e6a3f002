"""A worker's containers under its Slurm job's cgroup: the job's cgroup found in
/proc/self/cgroup, and a container created under a given parent for real."""

from __future__ import annotations

import textwrap
import uuid
from pathlib import Path
from typing import Any

import pytest

from lmr_author.executors.cgroups import container_parent, job_cgroup, job_cgroups
from lmr_author.images.task_images import ensure_image
from lmr_author.runtime.engine import use_cgroup_parent
from lmr_author.sandbox.limits import Limits
from lmr_author.sandbox.run_spec import RunSpec
from lmr_author.sandbox.runner import run_tests
from tests.support.sandbox_tasks import GOLDEN, write_task

V1 = """\
12:pids:/slurm/uid_1000/job_4242/step_batch/task_0
4:memory:/slurm/uid_1000/job_4242/step_batch/task_0
1:name=systemd:/user.slice/user-1000.slice/session-3.scope
"""
V2 = "0::/system.slice/slurmstepd.scope/job_77/step_batch/user/task_0\n"


def test_the_jobs_cgroup_is_found_on_cgroups_v1_and_v2() -> None:
    assert job_cgroup(V1, "4242") == "/slurm/uid_1000/job_4242"
    assert job_cgroup(V2, "77") == "/system.slice/slurmstepd.scope/job_77"


def test_every_hierarchy_the_job_has_is_found_for_apptainers_runs() -> None:
    hybrid = V1 + "3:cpu,cpuacct:/slurm/uid_1000/job_4242/step_0\n0::/user.slice\n"
    assert job_cgroups(hybrid, "4242") == {
        "pids": "/slurm/uid_1000/job_4242",
        "memory": "/slurm/uid_1000/job_4242",
        "cpu": "/slurm/uid_1000/job_4242",
        "cpuacct": "/slurm/uid_1000/job_4242",
    }
    assert job_cgroups(V2, "77") == {"": "/system.slice/slurmstepd.scope/job_77"}
    assert job_cgroups(V2, "7") == {}  # job_77 is not job_7
    assert job_cgroups(V1, "") == {}


def test_no_job_cgroup_means_no_parent() -> None:
    assert job_cgroup(V1, "77") is None  # another job's
    assert job_cgroup("4:memory:/process_api/abc\n0::/\n", "5") is None  # task/none
    assert job_cgroup(V2, "") is None  # not in a job
    assert job_cgroup(V2, "7/../..") is None


class _Engine:
    def __init__(self, driver: str) -> None:
        self.driver = driver

    def info(self) -> dict[str, str]:
        return {"CgroupDriver": self.driver}


def test_only_the_cgroupfs_driver_takes_a_jobs_path(monkeypatch: pytest.MonkeyPatch) -> None:
    # This process is in no Slurm job: nothing, whatever the driver.
    assert container_parent(_Engine("cgroupfs"), {"SLURM_JOB_ID": "99999999"}) is None
    monkeypatch.setattr("lmr_author.executors.cgroups.job_cgroup", lambda text, job: "/j")
    assert container_parent(_Engine("cgroupfs"), {"SLURM_JOB_ID": "1"}) == "/j"
    assert container_parent(_Engine("systemd"), {"SLURM_JOB_ID": "1"}) is None


PRINT_CGROUP = textwrap.dedent(
    """\
    from calc import add

    assert add(2, 3) == 5
    print(open("/proc/self/cgroup").read())
    """
)


@pytest.mark.docker
@pytest.mark.slow
@pytest.mark.usefixtures("image_cleanup")
def test_a_container_is_created_under_the_parent_given(tmp_path: Path, docker_client: Any) -> None:
    info = docker_client.info()
    if info.get("CgroupDriver") != "cgroupfs" or str(info.get("CgroupVersion")) != "1":
        # systemd: only slices; cgroups v2: the container sees its own cgroup as "/".
        pytest.skip("checked on a cgroupfs engine with cgroups v1 (CI's)")
    parent = f"/lmr-test-{uuid.uuid4().hex[:8]}"
    task = write_task(tmp_path, tag="cgparent", test_source=PRINT_CGROUP)
    image = ensure_image(task, client=docker_client)
    use_cgroup_parent(parent)
    try:
        spec = RunSpec(task, task.implementation(1), GOLDEN.encode(), image, Limits(timeout_s=60))
        run = run_tests(spec, client=docker_client)
    finally:
        use_cgroup_parent(None)
        for folder in sorted(Path("/sys/fs/cgroup").glob(f"*{parent}"), reverse=True):
            folder.rmdir()  # the engine removes the container's, not the parent it made
    [verdict] = run.verdicts
    assert verdict.verdict == "pass", verdict.reason
    # cgroups v1 (the host's cgroup namespace): the container sees its full path.
    assert f"{parent}/" in verdict.log, verdict.log
