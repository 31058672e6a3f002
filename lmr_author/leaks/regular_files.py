"""Reading a file of a task as data: regular files only, bounded, never blocking.

A task folder is the author's, or an agent's: a FIFO would block a read, a device would
never end, a symbolic link could point out of the folder. Only a regular file is read,
opened without following a link and without waiting.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)


def read_regular(path: Path, limit: int) -> bytes | None:
    """The bytes of ``path`` when it is a regular file (not a link, FIFO or device, which
    could block or point out of the folder) of at most ``limit`` bytes, else None."""
    try:
        info = path.lstat()
        if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
            return None
        fd = os.open(path, _FLAGS)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as handle:
        try:
            return handle.read(limit + 1)[:limit]
        except OSError:
            return None
