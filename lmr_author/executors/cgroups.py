"""Where a worker's containers go: under its Slurm job's cgroup, where the engine allows.

Docker and Podman create a container from their daemon (or API service), not from the
job: left alone, the test's processes sit in the engine's cgroup, which Slurm neither
counts nor limits. With the ``cgroupfs`` cgroup driver the engine takes any cgroup path
as the container's parent (``--cgroup-parent``), so the worker names its job's cgroup
(``.../job_<SLURM_JOB_ID>`` in /proc/self/cgroup) and the job's memory and CPU limits
and accounting then cover the container too. The ``systemd`` driver takes only a slice
name (``*.slice``), which a Slurm job's cgroup is not: there the container stays outside
the job (docs/cluster.md says what that means). Apptainer has no engine: its runs get
a child of the job's cgroup instead (`lmr_author.sandbox.run_cgroup`), placed from the
job cgroups read here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def job_cgroups(proc_cgroup: str, job_id: str) -> dict[str, str]:
    """The cgroup of job ``job_id`` per hierarchy of ``/proc/self/cgroup`` that has one
    (controller name, ``""`` for cgroups v2's line): ``.../job_<id>``. Empty when the
    process is in none (Slurm without ``proctrack/cgroup`` and ``task/cgroup``)."""
    if not job_id.isdigit():
        return {}
    marker = f"job_{job_id}"
    found: dict[str, str] = {}
    for line in proc_cgroup.splitlines():
        _, controllers, path = [*line.split(":", 2), "", ""][:3]
        parts = path.split("/")
        if marker in parts:
            for name in controllers.split(",") if controllers else [""]:
                found[name] = "/".join(parts[: parts.index(marker) + 1])
    return found


def job_cgroup(proc_cgroup: str, job_id: str) -> str | None:
    """The cgroup of job ``job_id`` out of ``/proc/self/cgroup`` (cgroups v2's line,
    else v1's memory controller), or None when the process is not in one."""
    paths = job_cgroups(proc_cgroup, job_id)
    return paths.get("", paths.get("memory"))


def own_job_cgroups(environ: Mapping[str, str]) -> dict[str, str]:
    """This process's job cgroups (`job_cgroups` of its ``SLURM_JOB_ID``), if any."""
    text = _own_cgroups()
    return {} if text is None else job_cgroups(text, environ.get("SLURM_JOB_ID", ""))


def _own_cgroups() -> str | None:
    try:
        with open("/proc/self/cgroup", encoding="utf-8") as handle:
            return handle.read()
    except OSError:
        return None


def container_parent(client: Any, environ: Mapping[str, str]) -> str | None:
    """The cgroup parent for this job's containers on ``client``'s engine, or None."""
    text = _own_cgroups()
    parent = None if text is None else job_cgroup(text, environ.get("SLURM_JOB_ID", ""))
    if parent is None:
        return None
    try:
        driver = str(client.info().get("CgroupDriver", ""))
    except Exception:  # an engine that does not say: leave its default alone
        return None
    return parent if driver == "cgroupfs" else None
