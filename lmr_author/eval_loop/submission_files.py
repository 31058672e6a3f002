"""Read a file of a submission as data: never through a symlink, never a special file.

A submission folder is written by the system under evaluation, so each of its entries
is hostile until proven a plain file: a goal file (or a folder on its way) that is a
symlink could point at ``/proc/self/environ`` or a key, and a FIFO would hang the
reader. `read_member` walks the path one component at a time from the submission root
with ``O_NOFOLLOW`` (each step relative to the folder already opened, so nothing can be
swapped in between), accepts only folders on the way and a regular file at the end, and
reads at most ``MAX_GOAL_FILE_BYTES``. No byte of a refused entry is ever read.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

#: Larger goal files are refused (the largest published goal file is far below this).
MAX_GOAL_FILE_BYTES = 4 << 20


@dataclass(frozen=True)
class Member:
    """What was found at a path of a submission: the bytes, or why they were refused."""

    data: bytes | None = None
    #: Why the entry is refused ("the goal file is a symlink"); empty when read or missing.
    refused: str = ""

    @property
    def missing(self) -> bool:
        return self.data is None and not self.refused


def read_member(root: Path, relative: str, *, what: str = "the goal file") -> Member:
    """The regular file at ``root/relative``, read without following any symlink."""
    parts = PurePosixPath(relative).parts
    if not parts or any(part in ("", ".", "..") for part in parts) or relative.startswith("/"):
        return Member(refused=f"{what} path {relative!r} leaves the submission folder")
    try:
        folder = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return Member()
    try:
        for index, part in enumerate(parts[:-1]):
            try:
                step = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=folder)
            except OSError as error:
                return _refusal(folder, part, error, f"the folder {'/'.join(parts[: index + 1])}")
            os.close(folder)
            folder = step
        return _read_file(folder, parts[-1], what)
    finally:
        os.close(folder)


def _read_file(folder: int, name: str, what: str) -> Member:
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=folder)
    except OSError as error:
        return _refusal(folder, name, error, what)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return Member(refused=f"{what} is {_kind(info.st_mode)}, not a regular file")
        if info.st_size > MAX_GOAL_FILE_BYTES:
            return Member(
                refused=f"{what} is larger than {MAX_GOAL_FILE_BYTES >> 20} MiB "
                f"({info.st_size} bytes)"
            )
        chunks: list[bytes] = []
        size = 0
        while size <= MAX_GOAL_FILE_BYTES:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > MAX_GOAL_FILE_BYTES:
            return Member(refused=f"{what} is larger than {MAX_GOAL_FILE_BYTES >> 20} MiB")
        return Member(data=b"".join(chunks))
    finally:
        os.close(fd)


def _refusal(folder: int, name: str, error: OSError, what: str) -> Member:
    """Turn a failed open into "missing" or a refusal that says what the entry is."""
    try:
        info = os.lstat(name, dir_fd=folder)
    except OSError:
        return Member()  # not there: no submission for this implementation
    if stat.S_ISLNK(info.st_mode):
        return Member(refused=f"{what} is a symlink")
    if not (stat.S_ISREG(info.st_mode) or stat.S_ISDIR(info.st_mode)):
        return Member(refused=f"{what} is {_kind(info.st_mode)}, not a regular file")
    if error.errno == errno.ENOTDIR:
        return Member(refused=f"{what} is {_kind(info.st_mode)}, not a folder")
    if error.errno in (errno.EACCES, errno.EPERM):
        return Member(refused=f"{what} cannot be read (permission denied)")
    return Member(refused=f"{what} cannot be read ({error.strerror})")


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISREG(mode):
        return "a regular file"
    return "a special file"
