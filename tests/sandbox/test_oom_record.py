"""The kernel's record of an out-of-memory kill says whose limit it was."""

from __future__ import annotations

from pathlib import Path

from lmr_author.sandbox.oom_record import blame, cgroup_memory_limit, parse_oom_kill

CID = "3f" * 32
OWN = (
    "6,1,2,-;oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=x,mems_allowed=0,"
    f"oom_memcg=/docker/{CID},task_memcg=/docker/{CID},task=python,pid=7,uid=65534"
)
JOB = (
    "6,2,3,-;oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=x,mems_allowed=0,"
    f"oom_memcg=/slurm/uid_0/job_5,task_memcg=/slurm/uid_0/job_5/{CID},task=python,pid=8,uid=1"
)
NODE = (
    "6,3,4,-;oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0,"
    f"global_oom,task_memcg=/docker/{CID},task=python,pid=9,uid=1"
)


def test_the_runs_own_limit_is_the_candidates() -> None:
    kill = parse_oom_kill(OWN)
    assert kill is not None and kill.oom_memcg == kill.task_memcg == f"/docker/{CID}"
    assert blame(CID, [kill]) == ""


def test_a_parent_cgroups_or_the_machines_kill_is_named() -> None:
    kills = [parse_oom_kill(line) for line in (OWN, JOB)]
    assert blame(CID, [k for k in kills if k]) == (
        "the memory limit of cgroup /slurm/uid_0/job_5 (a parent of the run's)"
    )
    node = parse_oom_kill(NODE)
    assert node is not None
    assert "machine's out-of-memory killer (CONSTRAINT_NONE)" in str(blame(CID, [node]))


def test_records_of_other_containers_and_other_lines_say_nothing() -> None:
    assert parse_oom_kill("6,4,5,-;eth0: link up") is None
    kill = parse_oom_kill(OWN.replace(CID, "ab" * 32))
    assert kill is not None and blame(CID, [kill]) is None


def test_a_cgroups_memory_limit_is_read_in_either_version(tmp_path: Path) -> None:
    (tmp_path / "job_5").mkdir()
    (tmp_path / "job_5" / "memory.max").write_text("314572800\n")
    assert cgroup_memory_limit("/job_5", root=str(tmp_path)) == 300 << 20
    (tmp_path / "memory" / "job_6").mkdir(parents=True)
    (tmp_path / "memory" / "job_6" / "memory.limit_in_bytes").write_text("9223372036854771712\n")
    assert cgroup_memory_limit("/job_6", root=str(tmp_path)) is None  # unlimited
    assert cgroup_memory_limit("/nowhere", root=str(tmp_path)) is None


def test_a_process_name_cannot_move_the_blame() -> None:
    """The killed process names itself (prctl): fields after ``task=`` are not read."""
    forged = OWN.replace("task=python", "task=x,oom_memcg=/slurm/job_9,constraint=CONSTRAINT_NONE")
    kill = parse_oom_kill(forged)
    assert kill is not None
    assert blame(CID, [kill]) == ""  # still the run's own limit
