"""An Apptainer run's own cgroup under its Slurm job's: the run's limits, counted by the job.

Given its limit flags, Apptainer moves the container into a cgroup of its own at the
root of the hierarchy (``/apptainer/<pid>``), out of the job that started it. Inside a
job (the worker says so: `use_job_cgroups`), a run instead gets a child cgroup of the
job's carrying the same limits as those flags (memory without swap, processes, a CPU
quota): per controller hierarchy on cgroups v1, the unified one on v2. Apptainer then
runs without its limit flags, and the container's processes are moved into the child
the way Apptainer moves them into its own: once the container exists, before anything
but our wrapper runs in it (`RunCgroup.admit_container`). Apptainer's starter stays in
the worker's cgroup, as it does with the flags, so its threads and memory count against
no run's limits and verdicts are those of the flags.

Where such a child cannot be made with every limit (not in a job, no writable
controller, a limit the kernel does not take as written, files the test's user could
write), `run_cgroup` yields None and the caller gives Apptainer its flags: a run is
never unlimited. The child goes when the run ends, with every process still in it.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from lmr_author.runtime.infra_error import InfraError
from lmr_author.sandbox.limits import Limits

#: The controllers a run's limits need (v1 names; on v2 the unified hierarchy has them).
CONTROLLERS = ("memory", "pids", "cpu")
#: The CFS period Apptainer (runc) uses with ``--cpus``: the quota is cpus × period.
CPU_PERIOD_US = 100_000
#: The hierarchy key of cgroups v2 in ``/proc/self/cgroup`` ("0::/path").
UNIFIED = ""

_JOB: dict[str, str] | None = None


def use_job_cgroups(paths: Mapping[str, str] | None) -> None:
    """The job's cgroup per hierarchy (controller name, ``""`` for v2: its path), read
    by the worker from ``/proc/self/cgroup``; None: this process runs in no job."""
    global _JOB
    _JOB = dict(paths) if paths else None


def selected_job_cgroups() -> dict[str, str] | None:
    return None if _JOB is None else dict(_JOB)


@dataclass(frozen=True)
class Mount:
    """A mounted cgroup hierarchy: v1 with its controllers, or v2 (``controllers`` empty)."""

    mount_point: str
    root: str
    controllers: frozenset[str]
    unified: bool


def proc_cgroups(text: str) -> dict[str, str]:
    """``/proc/<pid>/cgroup`` as {controller: path}; ``""`` is the v2 line."""
    paths: dict[str, str] = {}
    for line in text.splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        for name in parts[1].split(",") if parts[1] else [UNIFIED]:
            paths[name] = parts[2]
    return paths


def cgroup_mounts(mountinfo: str) -> list[Mount]:
    """The cgroup hierarchies of ``/proc/self/mountinfo``."""
    mounts = []
    for line in mountinfo.splitlines():
        fields, _, rest = line.partition(" - ")
        before, after = fields.split(), rest.split()
        if len(before) < 5 or len(after) < 3 or after[0] not in ("cgroup", "cgroup2"):
            continue
        options = set(after[2].split(","))
        mounts.append(
            Mount(
                mount_point=_unescape(before[4]),
                root=_unescape(before[3]),
                controllers=frozenset(options & set(CONTROLLERS)),
                unified=after[0] == "cgroup2",
            )
        )
    return mounts


def _unescape(field: str) -> str:
    """mountinfo writes space, tab, newline and backslash as octal escapes."""
    for code, char in (("\\040", " "), ("\\011", "\t"), ("\\012", "\n"), ("\\134", "\\")):
        field = field.replace(code, char)
    return field


def _on_disk(mount: Mount, path: str) -> Path | None:
    """Where cgroup ``path`` (as /proc/<pid>/cgroup names it) is under ``mount``."""
    root = mount.root.rstrip("/")
    if path != root and not path.startswith(root + "/"):
        return None  # the mount shows another part of the hierarchy
    return Path(mount.mount_point + path[len(root) :])


def child_folders(
    job: Mapping[str, str], own: Mapping[str, str], mounts: Sequence[Mount], name: str
) -> dict[str, Path] | None:
    """The folder of the run's child cgroup ``name`` per controller of `CONTROLLERS`.

    Cgroups v1, when the job has a memory cgroup: under the job's cgroup in each
    hierarchy where the job has one, else under this process's own (the hierarchies
    Slurm leaves alone, e.g. ``pids``: the child nests where the worker already sits).
    Cgroups v2: under the job's cgroup in the unified hierarchy. None when a controller
    has no mounted hierarchy or the job is in none of them.
    """
    if "memory" in job:
        folders = {}
        for controller in CONTROLLERS:
            base = job.get(controller, own.get(controller))
            mount = next((m for m in mounts if controller in m.controllers), None)
            where = None if base is None or mount is None else _on_disk(mount, base)
            if where is None:
                return None
            folders[controller] = where / name
        return folders
    if UNIFIED in job:
        mount = next((m for m in mounts if m.unified), None)
        where = None if mount is None else _on_disk(mount, job[UNIFIED])
        return None if where is None else dict.fromkeys(CONTROLLERS, where / name)
    return None


def limit_files(limits: Limits, *, unified: bool) -> dict[str, list[tuple[str, str]]]:
    """What each controller's files get, in order (memory before memory+swap): the
    values of Apptainer's ``--memory M --memory-swap M --cpus C --pids-limit P``."""
    memory = str(limits.memory_mb * 1024 * 1024)
    quota = str(max(1000, round(limits.cpus * CPU_PERIOD_US)))
    if unified:
        return {
            "memory": [("memory.max", memory), ("memory.swap.max", "0")],
            "pids": [("pids.max", str(limits.pids))],
            "cpu": [("cpu.max", f"{quota} {CPU_PERIOD_US}")],
        }
    return {
        "memory": [("memory.limit_in_bytes", memory), ("memory.memsw.limit_in_bytes", memory)],
        "pids": [("pids.max", str(limits.pids))],
        "cpu": [("cpu.cfs_period_us", str(CPU_PERIOD_US)), ("cpu.cfs_quota_us", quota)],
    }


#: Swap files whose absence lets a kernel without swap accounting run without swap.
_SWAP_ONLY = frozenset({"memory.memsw.limit_in_bytes", "memory.swap.max"})


class CgroupUnusable(Exception):
    """The child cannot carry every limit here: Apptainer's own flags instead."""


class RunCgroup:
    """A child cgroup made with ``limits``; processes join it through `admit_container`."""

    def __init__(self, folders: Mapping[str, Path], limits: Limits, unified: bool) -> None:
        self.folders = dict(folders)
        self.limits = limits
        self.unified = unified
        self.made: list[Path] = []

    @property
    def distinct(self) -> list[Path]:
        return list(dict.fromkeys(self.folders.values()))

    def make(self, test_uid: int) -> None:
        """Create the folders and write the limits, or raise `CgroupUnusable`."""
        try:
            if self.unified:
                self._enable_controllers(self.distinct[0].parent)
            for folder in self.distinct:
                folder.mkdir(mode=0o755)
                self.made.append(folder)
            for controller, values in limit_files(self.limits, unified=self.unified).items():
                for file, value in values:
                    _write_checked(self.folders[controller] / file, value)
        except OSError as error:
            raise CgroupUnusable(str(error)) from None
        for folder in self.made:
            for entry in [folder / "cgroup.procs", folder.parent / "cgroup.procs", folder]:
                _not_writable_by(entry, test_uid)
            for entry in folder.iterdir():
                _not_writable_by(entry, test_uid)

    @staticmethod
    def _enable_controllers(parent: Path) -> None:
        enabled = (parent / "cgroup.subtree_control").read_text().split()
        for controller in CONTROLLERS:
            if controller not in enabled:
                _write(parent / "cgroup.subtree_control", f"+{controller}")

    def admit(self, pid: int) -> None:
        """Move process ``pid`` (all its threads) into every folder of the child."""
        for folder in self.distinct:
            _write(folder / "cgroup.procs", str(pid))

    def holds(self, pid: int) -> bool:
        """Whether ``pid`` sits in the child in every hierarchy of it."""
        try:
            text = Path(f"/proc/{pid}/cgroup").read_text()
        except OSError:
            return False
        return self._holds(proc_cgroups(text))

    def _holds(self, paths: Mapping[str, str]) -> bool:
        name = self.distinct[0].name
        keys = [UNIFIED] if self.unified else list(CONTROLLERS)
        return all(paths.get(key, "").rsplit("/", 1)[-1] == name for key in keys)

    def admit_container(self, process: subprocess.Popen[bytes], marker: str, wait_s: float) -> None:
        """Once ``process`` (``apptainer exec``) has started the container and its first
        process shows ``marker`` (our wrapper, waiting for its stdin before running
        anything of the test's), move the container's processes into the child. The
        starter stays where it is, as with Apptainer's own flags. Returns at once if
        ``process`` ends first (its status says why); raises InfraError if no container
        appears within ``wait_s`` or one cannot be moved."""
        deadline = time.monotonic() + wait_s
        while not any(marker in args for _, args in _container_processes(process.pid)):
            if process.poll() is not None:
                return
            if time.monotonic() > deadline:
                raise InfraError(f"apptainer started no container within {wait_s:g} s")
            time.sleep(0.02)
        for _ in range(2):  # again: anything forked meanwhile (our wrapper's mkdir)
            for pid, _args in _container_processes(process.pid):
                with contextlib.suppress(ProcessLookupError):
                    self.admit(pid)
        # A process that ended between the listing and the check (the wrapper's short
        # children, under load) is not left out: only a live one outside the child is.
        stray = [
            pid
            for pid, _ in _container_processes(process.pid)
            if not self.holds(pid) and still_running(pid)
        ]
        if stray:
            raise InfraError(f"could not move the container's processes {stray} into its cgroup")

    def remove(self, wait_s: float = 10.0) -> None:
        """Kill what is left in the child and remove its folders (deepest first)."""
        deadline = time.monotonic() + wait_s
        for folder in reversed(self.made):
            while True:
                _kill_members(folder)
                try:
                    folder.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:  # busy: members still exiting
                    if time.monotonic() > deadline:
                        break  # nothing more to do; the job's end removes its tree
                    time.sleep(0.05)
        self.made = [folder for folder in self.made if folder.exists()]


def _write(path: Path, value: str) -> None:
    descriptor = os.open(path, os.O_WRONLY)  # never O_CREAT: only the kernel's files
    try:
        os.write(descriptor, value.encode())
    finally:
        os.close(descriptor)


def _write_checked(path: Path, value: str) -> None:
    if path.name in _SWAP_ONLY and not path.exists():
        if _host_swaps():
            raise CgroupUnusable(f"{path.name} is missing and the host has swap")
        return  # no swap accounting, and no swap to account for
    _write(path, value)
    read = path.read_text().split()
    if read != value.split():
        raise CgroupUnusable(f"{path} reads {' '.join(read)} after writing {value}")


def _host_swaps() -> bool:
    try:
        return len(Path("/proc/swaps").read_text().strip().splitlines()) > 1
    except OSError:
        return True


def _not_writable_by(path: Path, uid: int) -> None:
    """The test's user must not own, nor be able to write, its own cgroup (it could
    raise the limits) nor the parent's ``cgroup.procs`` (it could leave the child)."""
    status = path.stat()
    if status.st_uid == uid or status.st_mode & 0o022:
        raise CgroupUnusable(f"{path} is writable by the test's user {uid}")


def still_running(pid: int) -> bool:
    """Whether ``pid`` is a process that still runs (not gone, not a zombie)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    fields = stat.rsplit(")", 1)[-1].split()
    return bool(fields) and fields[0] not in ("Z", "X", "x")


def _container_processes(starter: int) -> list[tuple[int, list[str]]]:
    """The descendants of ``starter`` in another PID namespace than ours (the
    container's), with their arguments."""
    own = os.readlink("/proc/self/ns/pid")
    children = _children_lister()
    found = []
    pending = children(starter)
    while pending:
        pid = pending.pop()
        pending += children(pid)
        with contextlib.suppress(OSError):
            if os.readlink(f"/proc/{pid}/ns/pid") != own:
                raw = Path(f"/proc/{pid}/cmdline").read_bytes()
                found.append((pid, raw.decode("utf-8", "replace").split("\0")))
    return found


def _children_lister() -> Callable[[int], list[int]]:
    """Children by pid: the kernel's lists of each thread's (CONFIG_PROC_CHILDREN),
    else the parent field of every process, read once."""
    if Path(f"/proc/self/task/{threading.get_native_id()}/children").exists():

        def listed(pid: int) -> list[int]:
            found: list[int] = []
            with contextlib.suppress(OSError):
                for thread in Path(f"/proc/{pid}/task").iterdir():
                    with contextlib.suppress(OSError):
                        found += map(int, (thread / "children").read_text().split())
            return found

        return listed
    parents: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            with contextlib.suppress(OSError, ValueError, IndexError):
                stat = Path(f"/proc/{entry.name}/stat").read_text()
                parent = int(stat.rsplit(")", 1)[1].split()[1])
                parents.setdefault(parent, []).append(int(entry.name))
    return lambda pid: list(parents.get(pid, []))


def _kill_members(folder: Path) -> None:
    """SIGKILL every process of ``folder``, each through a pidfd opened while it was
    there, so a pid reused meanwhile by a process outside is never signalled."""
    if (folder / "cgroup.kill").exists():  # v2, Linux 5.14+: the kernel does it
        with contextlib.suppress(OSError):
            _write(folder / "cgroup.kill", "1")
        return
    try:
        members = (folder / "cgroup.procs").read_text().split()
    except OSError:
        return
    for pid in map(int, members):
        try:
            handle = os.pidfd_open(pid)
        except OSError:
            continue
        try:
            paths = proc_cgroups(Path(f"/proc/{pid}/cgroup").read_text()).values()
            if folder.name in (path.rsplit("/", 1)[-1] for path in paths):
                signal.pidfd_send_signal(handle, signal.SIGKILL)
        except OSError:
            pass
        finally:
            os.close(handle)


@contextlib.contextmanager
def run_cgroup(limits: Limits, test_uid: int) -> Iterator[RunCgroup | None]:
    """A child of the job's cgroup carrying ``limits`` for one ``apptainer exec`` whose
    test runs as ``test_uid``, removed when the block ends however it ends; None when
    this process runs in no job or the child cannot carry every limit here."""
    job = selected_job_cgroups()
    cgroup = None if job is None else _planned(job, limits)
    if cgroup is not None:
        try:
            cgroup.make(test_uid)
        except CgroupUnusable:
            cgroup.remove()
            cgroup = None
    try:
        yield cgroup
    finally:
        if cgroup is not None:
            cgroup.remove()


def _planned(job: Mapping[str, str], limits: Limits) -> RunCgroup | None:
    try:
        own = proc_cgroups(Path("/proc/self/cgroup").read_text())
        mounts = cgroup_mounts(Path("/proc/self/mountinfo").read_text())
    except OSError:
        return None
    name = f"lmr-run-{os.getpid()}-{secrets.token_hex(4)}"
    folders = child_folders(job, own, mounts, name)
    if folders is None:
        return None
    return RunCgroup(folders, limits, unified="memory" not in job)
