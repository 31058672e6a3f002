"""An agent's container: the task's image, locked down as a test container is, kept running.

The container is made by the sandbox's own
`lmr_author.sandbox.container_life.sandbox_container` (the maker of every test
container), so the agent gets exactly what a candidate gets: the unprivileged
``RUN_UID`` user, no network, memory (and swap), CPU and process limits, no
capabilities, no privilege escalation, size-limited tmpfs scratch, and run labels whose
owner pid and deadline let any later evaluation remove it if this process dies. What
differs is that it stays up (``sleep`` until its deadline) and that the workspace is one
more tmpfs, the only place besides the scratch the agent can write.

Every command runs as ``RUN_UID`` through the engine's exec API: nothing here ever runs
as root in the container, so no command the agent can influence (its PATH, its files)
runs with more authority than the agent. The engine's archive API does not see tmpfs
mounts, so files go in through a root-owned, read-only staging folder in the image's
layer and are copied by the unprivileged user, and come out through ``python`` writing
them to the exec's output, read with a size cap.
"""

from __future__ import annotations

import contextlib
import io
import os
import tarfile
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from lmr_author.runtime.infra_error import InfraError
from lmr_author.sandbox.container_life import RUN_GID, RUN_UID, run_labels
from lmr_author.sandbox.limits import Limits

if TYPE_CHECKING:
    from docker.models.containers import Container

    from lmr_author.images.task_images import ImageRef

#: Where the agent's workspace is (its commands' default folder).
WORKSPACE = "/workspace"
#: Root-owned, read-only staging in the image's layer (tmpfs mounts are out of reach of
#: the archive API); files there are written by us only and copied by the agent's user.
STAGING = "/.lmr-inspect"
#: The agent's user, as `user=` may name it.
AGENT_USERS = frozenset({None, "", str(RUN_UID), f"{RUN_UID}:{RUN_GID}", "nobody"})
#: Exit status of ``timeout`` when it stopped a command (TERM, then KILL).
_TIMED_OUT = frozenset({124, 137})

#: Copies a staged file to its place as the agent's user (parents made as needed).
_PLACE = (
    "import os, shutil, sys\n"
    "source, target = sys.argv[1], sys.argv[2]\n"
    "os.makedirs(os.path.dirname(target) or '.', exist_ok=True)\n"
    "shutil.copyfile(source, target)\n"
)
#: Unpacks a staged tar into the workspace, refusing links and paths that leave it.
_UNPACK = (
    "import sys, tarfile\n"
    "safe = {'filter': 'data'} if hasattr(tarfile, 'data_filter') else {}\n"
    "with tarfile.open(sys.argv[1]) as archive:\n"
    "    archive.extractall(sys.argv[2], **safe)\n"
)
#: Writes one regular file to stdout; a link or anything else is refused (exit 3, 4).
_CAT = (
    "import os, stat, sys\n"
    "path = sys.argv[1]\n"
    "info = os.lstat(path)\n"
    "if stat.S_ISDIR(info.st_mode): sys.exit(4)\n"
    "if not stat.S_ISREG(info.st_mode): sys.exit(3)\n"
    "fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)\n"
    "with os.fdopen(fd, 'rb') as f:\n"
    "    while chunk := f.read(1 << 20): sys.stdout.buffer.write(chunk)\n"
)
#: Writes a folder as an uncompressed tar to stdout; symlinks stay symlinks.
_TAR = (
    "import sys, tarfile\n"
    "with tarfile.open(fileobj=sys.stdout.buffer, mode='w|') as archive:\n"
    "    archive.add(sys.argv[1], arcname='.')\n"
)


@dataclass(frozen=True)
class AgentLimits:
    """What an agent's container may use: the test limits plus a workspace and a lifetime."""

    limits: Limits
    #: Size of the workspace tmpfs (it counts against the memory limit, as scratch does).
    workspace_mb: int = 256
    #: Seconds the container lives at most; after that it stops and is anyone's to remove.
    lifetime_s: float = 6 * 3600.0


@dataclass(frozen=True)
class ExecOutput:
    """What one command gave back: status and both streams (each capped, tail kept)."""

    returncode: int
    stdout: bytes
    stderr: bytes
    timed_out: bool = False


class AgentContainer:
    """One running agent container; `close` (or the ``with`` block) removes it."""

    def __init__(self, client: Any, task_name: str, image: ImageRef, limits: AgentLimits) -> None:
        from lmr_author.runtime.engine import tmpfs_owner
        from lmr_author.sandbox.container_life import (
            sandbox_container,
            scratch_tmpfs,
            tmpfs_options,
        )

        self.client = client
        self.image = image
        self._stack = contextlib.ExitStack()
        base = limits.limits
        owner = tmpfs_owner(client, RUN_UID, RUN_GID)
        mounts = scratch_tmpfs(base)
        mounts[WORKSPACE] = tmpfs_options(f"{max(1, limits.workspace_mb)}m", 0o700, owner)
        hidden = _hidden_repository(image.workdir)
        if hidden is not None:  # the image's copy of the repository is not the workspace's
            mounts[hidden] = tmpfs_options("1m", 0o555)
        self.container: Container = self._stack.enter_context(
            sandbox_container(
                client,
                image=image,
                command=["sleep", str(int(limits.lifetime_s))],
                workdir=WORKSPACE,
                environment={"HOME": "/tmp", "PYTHONDONTWRITEBYTECODE": "1"},
                user=f"{RUN_UID}:{RUN_GID}",
                limits=base,
                tmpfs=mounts,
                labels=run_labels(task_name, limits.lifetime_s),
            )
        )
        try:
            self.container.start()
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        """Remove the container (whatever runs in it); safe to call twice."""
        self._stack.close()

    def __enter__(self) -> AgentContainer:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    # -- commands -------------------------------------------------------------------

    def run(
        self,
        cmd: Sequence[str],
        *,
        stdin: bytes | None = None,
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
        timeout_s: float | None = None,
        cap: int = 10 << 20,
    ) -> ExecOutput:
        """Run ``cmd`` as the agent's user; ``stdin`` is staged and fed from a file."""
        command = list(cmd)
        if stdin is not None:
            staged = self._stage(stdin)
            command = ["/bin/sh", "-c", 'exec "$@" < "$0"', staged, *command]
        if timeout_s is not None:
            # Its own process group, all killed: what the command started ends with it.
            command = ["timeout", "-k", "5", f"{max(1, int(timeout_s))}", *command]
        result = self._exec(command, cwd=self._path(cwd or "."), env=env, cap=cap)
        if timeout_s is not None and result.returncode in _TIMED_OUT:
            return ExecOutput(result.returncode, result.stdout, result.stderr, timed_out=True)
        return result

    def write(self, path: str, data: bytes) -> None:
        """Write ``data`` to ``path`` (relative to the workspace) as the agent's user."""
        staged = self._stage(data)
        done = self._exec(["python", "-I", "-c", _PLACE, staged, self._path(path)])
        if done.returncode != 0:
            raise PermissionError(_tail(done.stderr) or f"cannot write {path}")

    def read(self, path: str, *, cap: int) -> bytes:
        """The bytes of the regular file ``path``; a symlink or special file is refused."""
        done = self._exec(["python", "-I", "-c", _CAT, self._path(path)], cap=cap + 1)
        if done.returncode == 4:
            raise IsADirectoryError(path)
        if done.returncode == 3:
            raise FileNotFoundError(f"{path} is a symlink or a special file, not read")
        if done.returncode != 0:
            error = _tail(done.stderr)
            if "PermissionError" in error:
                raise PermissionError(path)
            raise FileNotFoundError(path)
        if len(done.stdout) > cap:
            raise OverflowError(f"{path} is larger than {cap} bytes")
        return done.stdout

    def unpack(self, archive: bytes) -> None:
        """Unpack a tar into the workspace as the agent's user (the files become its own)."""
        staged = self._stage(archive)
        done = self._exec(["python", "-I", "-c", _UNPACK, staged, WORKSPACE])
        if done.returncode != 0:
            raise InfraError(f"could not put the workspace in place: {_tail(done.stderr)}")

    def pack(self, *, cap: int) -> bytes:
        """The workspace as a tar (links kept as links), at most ``cap`` bytes."""
        done = self._exec(["python", "-I", "-c", _TAR, WORKSPACE], cap=cap + 1, tail=False)
        if done.returncode != 0:
            raise InfraError(f"could not read the workspace back: {_tail(done.stderr)}")
        if len(done.stdout) > cap:
            raise OverflowError(f"the workspace is larger than {cap >> 20} MiB")
        return done.stdout

    # -- plumbing -------------------------------------------------------------------

    @staticmethod
    def _path(path: str) -> str:
        return str(PurePosixPath(WORKSPACE) / path)

    def _stage(self, data: bytes) -> str:
        """Put ``data`` in the staging folder (root's, read-only for the agent); its path."""
        name = f"{STAGING.lstrip('/')}/{uuid.uuid4().hex}"
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w") as archive:
            folder = tarfile.TarInfo(STAGING.lstrip("/"))
            folder.type, folder.mode, folder.mtime = tarfile.DIRTYPE, 0o755, int(time.time())
            archive.addfile(folder)
            entry = tarfile.TarInfo(name)
            entry.size, entry.mode, entry.mtime = len(data), 0o444, int(time.time())
            archive.addfile(entry, io.BytesIO(data))
        if not self.container.put_archive("/", buffer.getvalue()):
            raise InfraError("the engine refused to copy a file into the agent's container")
        return f"/{name}"

    def _exec(
        self,
        command: list[str],
        *,
        cwd: str = WORKSPACE,
        env: Mapping[str, str] | None = None,
        cap: int = 10 << 20,
        tail: bool = True,
    ) -> ExecOutput:
        api = self.client.api
        created = api.exec_create(
            self.container.id,
            command,
            stdout=True,
            stderr=True,
            stdin=False,
            user=f"{RUN_UID}:{RUN_GID}",
            workdir=cwd,
            environment=dict(env or {}),
        )
        out, err = _Capped(cap, tail), _Capped(cap, tail)
        for chunk_out, chunk_err in api.exec_start(created["Id"], stream=True, demux=True):
            out.add(chunk_out)
            err.add(chunk_err)
        code = api.exec_inspect(created["Id"]).get("ExitCode")
        return ExecOutput(-1 if code is None else int(code), out.data(), err.data())


class _Capped:
    """A stream kept up to ``cap`` bytes: the tail (commands) or the head (files)."""

    def __init__(self, cap: int, tail: bool) -> None:
        self.cap, self.tail = cap, tail
        self.kept = bytearray()

    def add(self, chunk: bytes | None) -> None:
        if not chunk:
            return
        if self.tail:
            self.kept.extend(chunk)
            if len(self.kept) > self.cap:
                del self.kept[: len(self.kept) - self.cap]
        elif len(self.kept) < self.cap:
            self.kept.extend(chunk[: self.cap - len(self.kept)])

    def data(self) -> bytes:
        return bytes(self.kept)


def _tail(data: bytes, size: int = 2000) -> str:
    return data[-size:].decode("utf-8", "replace").strip()


def _hidden_repository(workdir: str) -> str | None:
    """Where the image keeps the repository, when the workspace's tmpfs does not cover it.

    A setting without the repository (paper-only) must not find it in the image either.
    """
    path = PurePosixPath(workdir or "/")
    workspace = PurePosixPath(WORKSPACE)
    if path == PurePosixPath("/") or path == workspace or workspace in path.parents:
        return None
    if path in workspace.parents:
        return None  # an ancestor of the workspace: cannot be covered without it
    return str(path)


def workspace_archive(folder: Path) -> bytes:
    """A tar of a prepared workspace, owned by the agent's user; only files and folders."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        for path in sorted(folder.rglob("*")):
            relative = path.relative_to(folder).as_posix()
            if path.is_symlink():
                continue  # prepare writes none; never follow one
            entry = archive.gettarinfo(str(path), arcname=relative)
            entry.uid, entry.gid, entry.uname, entry.gname = RUN_UID, RUN_GID, "", ""
            if path.is_file():
                with path.open("rb") as handle:
                    archive.addfile(entry, handle)
            elif path.is_dir():
                archive.addfile(entry)
    return buffer.getvalue()


def unpack_to(archive: bytes, folder: Path) -> None:
    """Unpack a workspace read back from a container into ``folder``, as data.

    Only regular files and folders are taken (a link or special file the agent left is
    as good as absent: the collector then finds nothing there); the ``data`` filter
    refuses absolute paths and ``..``, and drops owners and special mode bits.
    """
    folder.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(archive), mode="r:") as tar:
        members = [m for m in tar.getmembers() if m.isfile() or m.isdir()]
        tar.extractall(folder, members=members, filter="data")


@contextlib.contextmanager
def agent_container(
    task_name: str, image: ImageRef, limits: AgentLimits, client: Any = None
) -> Iterator[AgentContainer]:
    """An `AgentContainer` for ``with`` blocks (tests, scripts)."""
    from lmr_author.runtime.engine import get_client

    container = AgentContainer(client or get_client(), task_name, image, limits)
    try:
        yield container
    finally:
        container.close()


def max_exec_output() -> int:
    """Inspect's cap of one exec's streams (``INSPECT_SANDBOX_MAX_EXEC_OUTPUT_SIZE``)."""
    try:
        return max(1, int(os.environ.get("INSPECT_SANDBOX_MAX_EXEC_OUTPUT_SIZE", 10 << 20)))
    except ValueError:
        return 10 << 20
