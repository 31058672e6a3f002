"""Atomic file writes: a reader sees the old file or the new one, never half of one.

Every result, label export, task file and cache entry goes through here. The data is
written to a temporary file in the same folder, flushed and fsync'ed, then renamed over
the target (``os.replace`` is atomic on POSIX within one file system).

A write that fails (the target is a folder, the folder is not writable, the disk is
full) raises `WriteError`: a `UserError` naming the file, so ``-o FOLDER`` is explained in
one paragraph, and still an ``OSError`` for callers that handle those.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from lmr_author.util.errors import UserError


class WriteError(UserError, OSError):
    """A file could not be written; the message names it and says why."""

    def __init__(self, target: Path, error: OSError) -> None:
        blocking = next((p for p in target.parents if p.exists() and not p.is_dir()), None)
        if target.is_dir():
            message, hint = "is a folder, not a file", "Give a file name inside it."
        elif blocking is not None:
            message = f"cannot write it: {blocking} is a file, not a folder"
            hint = "Choose another place for it."
        elif error.errno in (errno.ENOSPC, errno.EDQUOT):
            full = (
                "the disk is full" if error.errno == errno.ENOSPC else "the disk quota is used up"
            )
            message = f"cannot write it: {full}"
            hint = "Free space on the disk that holds it, then run the command again."
        else:
            reason = error.strerror or str(error) or type(error).__name__
            message = f"cannot write it ({reason})"
            hint = "Check that its folder exists or can be made, and that you may write there."
        UserError.__init__(self, message, file=target, hint=hint)
        self.errno = error.errno
        self.strerror = error.strerror
        self.filename = str(target)

    def __str__(self) -> str:  # OSError's own str() would win otherwise
        return self.render()


#: What the temporary file of a write of ``name`` is called: ``.<name>.<random>.tmp``.
TEMP_SUFFIX = ".tmp"


def is_temporary(path: Path) -> bool:
    """Whether ``path`` is named like the temporary file of an atomic write."""
    name = path.name
    return name.startswith(".") and name.endswith(TEMP_SUFFIX) and name.count(".") >= 3


def atomic_write_bytes(path: str | Path, data: bytes, *, mode: int | None = None) -> None:
    """Write ``data`` to ``path`` atomically, creating parent folders.

    Raises `WriteError` (a `UserError` and an ``OSError``) when it cannot.
    """
    target = Path(path)
    try:
        _write_bytes(target, data, mode)
    except WriteError:
        raise
    except OSError as error:
        raise WriteError(target, error) from error


def _write_bytes(target: Path, data: bytes, mode: int | None) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    if mode is None:
        try:
            mode = target.stat().st_mode & 0o7777
        except FileNotFoundError:
            mode = 0o644
    fd, tmp_name = tempfile.mkstemp(
        prefix=f".{target.name}.", suffix=TEMP_SUFFIX, dir=target.parent
    )
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp_name, mode)
        os.replace(tmp_name, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_name)
        raise
    _fsync_dir(target.parent)


def atomic_write_text(path: str | Path, text: str, *, encoding: str = "utf-8") -> None:
    """Write ``text`` atomically; newlines are written exactly as given."""
    atomic_write_bytes(path, text.encode(encoding))


def atomic_write_json(path: str | Path, data: Any, *, indent: int = 4) -> None:
    """Write ``data`` as JSON (UTF-8, trailing newline) atomically."""
    atomic_write_text(path, json.dumps(data, indent=indent, ensure_ascii=False) + "\n")


def _fsync_dir(folder: Path) -> None:
    # Make the rename itself durable; not every platform lets a folder be opened.
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
