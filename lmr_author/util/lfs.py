"""Git LFS pointer files: data a repository names but never delivered.

Published tasks ship fixtures and data as LFS pointers when the data was not pulled; a
test then fails whatever the candidate writes. The validator reports them, and a task
whose golden code fails because of them is "not runnable here" rather than a fail.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

#: Every pointer file starts with this line (git-lfs spec v1 and its pre-release).
PREFIX = b"version https://git-lfs."
#: Pointer files are tiny; anything larger is real data.
MAX_POINTER_BYTES = 1024
_SIZE = re.compile(rb"^size (\d+)", re.MULTILINE)


@dataclass(frozen=True)
class Pointer:
    """A pointer file and the size of the data it stands for (None if it does not say)."""

    path: Path
    size: int | None


def read_pointer(path: Path) -> Pointer | None:
    """The pointer ``path`` is, or None when it is real data (or unreadable, or a link)."""
    try:
        if path.is_symlink():
            return None
        with path.open("rb") as handle:
            head = handle.read(MAX_POINTER_BYTES + 1)
    except OSError:
        return None
    if len(head) > MAX_POINTER_BYTES or not head.startswith(PREFIX):
        return None
    size = _SIZE.search(head)
    return Pointer(path, int(size.group(1)) if size else None)


def pointers_under(folder: Path, *, max_files: int = 20_000) -> Iterator[Pointer]:
    """The pointer files below ``folder`` (links not followed; at most ``max_files`` read)."""
    seen = 0
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(name for name in dirs if name != ".git")
        for name in sorted(files):
            seen += 1
            if seen > max_files:
                return
            path = Path(root) / name
            try:
                if path.stat(follow_symlinks=False).st_size > MAX_POINTER_BYTES:
                    continue
            except OSError:
                continue
            found = read_pointer(path)
            if found is not None:
                yield found
