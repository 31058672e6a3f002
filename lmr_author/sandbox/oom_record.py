"""Which cgroup's limit an out-of-memory kill answered: the kernel's own record.

The engine's ``OOMKilled`` (and the supervisor's report of a test killed by SIGKILL)
says only that a process of the container was killed. Under a Slurm job whose cgroup is
the container's parent, the job's memory limit kills the test just the same, and so does
the node's out-of-memory killer acting on the whole machine; neither is the run's own
limit, so neither may become the candidate's "out of memory". The kernel logs every
such kill as one line (``oom-kill:constraint=...,oom_memcg=<cgroup whose limit was
hit>,task_memcg=<cgroup of the killed process>,...``, Linux 4.19 on): `read_oom_kills`
reads those lines from ``/dev/kmsg`` and `blame` says whose limit it was for one
container. A kernel log this process may not read gives None: the caller decides
from what else it knows.
"""

from __future__ import annotations

import errno
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass

KMSG = "/dev/kmsg"
_RECORD = re.compile(r"oom-kill:(?P<fields>\S+)")


@dataclass(frozen=True)
class OomKill:
    """One kernel record of an out-of-memory kill."""

    #: CONSTRAINT_MEMCG (a cgroup's limit), CONSTRAINT_NONE (the whole machine), ...
    constraint: str
    #: The cgroup whose limit was reached ("" for a machine-wide kill).
    oom_memcg: str
    #: The cgroup of the process that was killed.
    task_memcg: str


def parse_oom_kill(line: str) -> OomKill | None:
    """The fields of one ``oom-kill:`` kernel line, or None for any other line."""
    match = _RECORD.search(line)
    if match is None:
        return None
    fields: dict[str, str] = {}
    for part in match.group("fields").split(","):
        name, _, value = part.partition("=")
        # The killed process's name (task=) comes after the cgroups and is the
        # candidate's to choose ("x,oom_memcg=/"): the kernel's own fields come first
        # and are never overwritten, and nothing after the name is read.
        fields.setdefault(name, value)
        if name == "task":
            break
    return OomKill(
        constraint=fields.get("constraint", ""),
        oom_memcg=fields.get("oom_memcg", ""),
        task_memcg=fields.get("task_memcg", ""),
    )


def read_oom_kills(path: str = KMSG) -> list[OomKill] | None:
    """Every out-of-memory kill in the kernel's log buffer, or None when it cannot be
    read here (no permission: ``dmesg_restrict``, no such device in a container)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return None
    kills: list[OomKill] = []
    try:
        while True:
            try:
                chunk = os.read(fd, 8192)  # one record per read
            except BlockingIOError:
                break
            except OSError as error:
                if error.errno == errno.EPIPE:  # overwritten while reading: go on
                    continue
                if error.errno == errno.EINVAL:  # a record longer than the buffer
                    continue
                return None
            if not chunk:
                break
            found = parse_oom_kill(chunk.decode("utf-8", errors="replace"))
            if found is not None:
                kills.append(found)
    finally:
        os.close(fd)
    return kills


def blame(container_id: str, kills: Iterable[OomKill]) -> str | None:
    """Whose limit killed ``container_id``'s process, from the kernel's records: "" when
    the container's own cgroup (the run's limit), else a sentence naming the cgroup or
    the machine. None when no record names the container."""
    verdict: str | None = None
    for kill in kills:
        if container_id not in kill.task_memcg:
            continue
        if kill.constraint == "CONSTRAINT_MEMCG" and container_id in kill.oom_memcg:
            verdict = ""  # the run's own limit; a later outside kill still wins below
            continue
        if kill.constraint == "CONSTRAINT_MEMCG":
            return f"the memory limit of cgroup {kill.oom_memcg} (a parent of the run's)"
        return f"the machine's out-of-memory killer ({kill.constraint or 'no constraint'})"
    return verdict


def cgroup_memory_limit(cgroup: str, root: str = "/sys/fs/cgroup") -> int | None:
    """The memory limit in bytes of ``cgroup`` (v2's ``memory.max``, v1's
    ``memory.limit_in_bytes``), or None when unlimited or unreadable."""
    relative = cgroup.strip("/")
    v2, v1 = f"{root}/{relative}/memory.max", f"{root}/memory/{relative}/memory.limit_in_bytes"
    for path in (v2, v1):
        try:
            with open(path, encoding="ascii") as handle:
                text = handle.read().strip()
        except OSError:
            continue
        if text.isdigit() and int(text) < (1 << 62):
            return int(text)
        return None
    return None
