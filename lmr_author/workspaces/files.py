"""Reading a workspace as data: no symlink is ever followed, no special file is opened.

An agent may leave anything in its workspace, including symlinks that point outside it.
Every folder is opened relative to its parent's descriptor with ``O_NOFOLLOW`` (so a
symlinked folder on the way is refused, not traversed), every file is classified with
``lstat`` before it is opened, and regular files are opened with ``O_NOFOLLOW`` too.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0) | os.O_NONBLOCK
#: Folders that interpreters and tools leave behind; they are not the agent's work.
IGNORED_DIRS = frozenset({"__pycache__", ".pytest_cache", ".mypy_cache"})


class NotRegularFile(Exception):
    """A path is (or goes through) a symlink or a special file, or does not exist."""

    def __init__(self, relative: str, what: str) -> None:
        self.relative = relative
        self.what = what
        super().__init__(f"{relative}: {what}")


@dataclass(frozen=True)
class Entry:
    """One thing found in a workspace: a regular file (with its hash) or something else."""

    path: str  # relative, POSIX
    kind: str  # "file", "symlink" or "special"
    sha256: str = ""


def _kind(mode: int) -> str:
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISLNK(mode):
        return "symlink"
    return "special"


@contextlib.contextmanager
def _open_dir(root: Path, parts: tuple[str, ...], relative: str) -> Iterator[int]:
    """A descriptor of ``root/parts``, each step opened without following a symlink."""
    try:
        fd = os.open(root, _DIR_FLAGS)
    except FileNotFoundError:
        raise NotRegularFile(relative, "the workspace is missing") from None
    except OSError:
        raise NotRegularFile(relative, "the workspace is not a plain folder") from None
    try:
        for part in parts:
            try:
                child = os.open(part, _DIR_FLAGS, dir_fd=fd)
            except FileNotFoundError:
                raise NotRegularFile(relative, "missing") from None
            except OSError:
                raise NotRegularFile(
                    relative, f"{part!r} on its way is not a plain folder"
                ) from None
            os.close(fd)
            fd = child
        yield fd
    finally:
        os.close(fd)


def read_file(root: Path, relative: str) -> bytes:
    """The bytes of the regular file ``root/relative``; `NotRegularFile` for anything else."""
    parts = PurePosixPath(relative).parts
    with _open_dir(root, parts[:-1], relative) as folder:
        try:
            info = os.stat(parts[-1], dir_fd=folder, follow_symlinks=False)
        except FileNotFoundError:
            raise NotRegularFile(relative, "missing") from None
        kind = _kind(info.st_mode)
        if kind != "file":
            raise NotRegularFile(relative, f"a {kind}, not a regular file (not followed)")
        try:
            fd = os.open(parts[-1], _FILE_FLAGS, dir_fd=folder)
        except OSError as error:
            raise NotRegularFile(relative, f"cannot be opened ({error.strerror})") from None
    with os.fdopen(fd, "rb") as handle:
        return handle.read()


def scan(root: Path) -> list[Entry]:
    """Everything under ``root``, sorted by path; symlinked folders are listed, not entered."""
    found: list[Entry] = []
    if not root.is_dir() or root.is_symlink():
        return found
    for folder, dirs, files, dir_fd in os.fwalk(root, follow_symlinks=False):
        base = PurePosixPath(Path(folder).relative_to(root).as_posix())
        kept = []
        for name in sorted(dirs):
            if name in IGNORED_DIRS:
                continue
            try:
                info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
            except FileNotFoundError:
                continue
            if stat.S_ISDIR(info.st_mode):
                kept.append(name)
            else:  # fwalk lists a symlink to a folder among the folders: never enter it
                found.append(Entry(str(base / name) if str(base) != "." else name, "symlink"))
        dirs[:] = kept
        for name in sorted(files):
            relative = str(base / name) if str(base) != "." else name
            try:
                info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
            except FileNotFoundError:
                continue
            kind = _kind(info.st_mode)
            if kind != "file":
                found.append(Entry(relative, kind))
                continue
            try:
                fd = os.open(name, _FILE_FLAGS, dir_fd=dir_fd)
            except OSError:
                found.append(Entry(relative, "special"))
                continue
            digest = hashlib.sha256()
            with os.fdopen(fd, "rb") as handle:
                for block in iter(lambda: handle.read(1 << 20), b""):
                    digest.update(block)
            found.append(Entry(relative, "file", digest.hexdigest()))
    found.sort(key=lambda entry: entry.path)
    return found
