"""The files a ``.git`` folder holds, in every version it kept, read as data.

A repository shipped with its ``.git`` folder hands out its history: the goal file as it
was before it was masked, and every file ever deleted. Objects are read with gitdb
(GitPython's object database: loose and packed objects, deltas resolved) and never with
the ``git`` program, which would read the folder's config and hooks, and those are the
task author's, not ours. Tree objects give the blobs their paths; a blob no tree names
(dangling, or its tree was lost) keeps only its id.

Reading never raises: a broken object, pack or index is skipped. Bounds keep a huge or
hostile history from stalling validation.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

#: Blobs larger than this are not read (a goal file is code, not data).
MAX_BLOB_BYTES = 2 * 1024 * 1024
#: At most this many objects are looked at, and this many bytes of blobs read.
MAX_OBJECTS = 200_000
MAX_TOTAL_BYTES = 256 * 1024 * 1024


@dataclass(frozen=True)
class Blob:
    sha: str  # hex
    path: str  # "" when no tree names it
    data: bytes


def git_dir(folder: Path) -> Path | None:
    """The objects folder of ``folder/.git`` (a folder, or a ``gitdir:`` file inside
    ``folder`` pointing at one), or None."""
    dot_git = folder / ".git"
    try:
        if dot_git.is_symlink():
            return None
        if dot_git.is_dir():
            objects = dot_git / "objects"
            return objects if objects.is_dir() and not objects.is_symlink() else None
    except OSError:
        return None
    return None


def blobs(objects: Path, wanted: tuple[str, ...] = (".py", ".ipynb")) -> Iterator[Blob]:
    """The blobs of the object database whose path ends with one of ``wanted``, or that
    no tree names (they may be anything); a blob is given once, with one of its paths."""
    if not _plain(objects):
        return  # a link, FIFO or device among the objects: not a database we read
    try:
        from gitdb import GitDB

        database = GitDB(str(objects))
        shas = list(_bounded(database.sha_iter(), MAX_OBJECTS))
    except Exception:  # a broken database: nothing can be read from it
        return
    kinds: dict[bytes, bytes] = {}
    for sha in shas:
        try:
            kinds[sha] = database.info(sha).type
        except Exception:
            continue
    names: dict[bytes, tuple[bytes, str]] = {}  # child -> (parent tree, name)
    for sha, kind in kinds.items():
        if kind != b"tree":
            continue
        try:
            data = database.stream(sha).read()
        except Exception:
            continue
        for child, name in _tree_entries(data):
            names.setdefault(child, (sha, name))
    total = 0
    for sha, kind in kinds.items():
        if kind != b"blob":
            continue
        path = _path(sha, names)
        if path and not path.endswith(wanted):
            continue
        try:
            if database.info(sha).size > MAX_BLOB_BYTES:
                continue
            data = database.stream(sha).read(MAX_BLOB_BYTES + 1)
        except Exception:
            continue
        total += len(data)
        if total > MAX_TOTAL_BYTES:
            return
        yield Blob(sha.hex(), path, data)


def _plain(objects: Path) -> bool:
    """Only folders and regular files under ``objects`` (gitdb would open a FIFO and wait,
    or follow a link out of the folder)."""
    import stat

    count = 0
    for folder, dirs, files in os.walk(objects, followlinks=False):
        for name in dirs + files:
            count += 1
            try:
                mode = os.lstat(os.path.join(folder, name)).st_mode
            except OSError:
                return False
            if not (stat.S_ISDIR(mode) or stat.S_ISREG(mode)) or count > MAX_OBJECTS:
                return False
    return True


def blob_sha(data: bytes) -> str:
    """The id git gives a file's content (to know a blob is the file as it is now)."""
    import hashlib

    return hashlib.sha1(b"blob %d\x00" % len(data) + data, usedforsecurity=False).hexdigest()


def _bounded(items: Iterator[bytes], limit: int) -> Iterator[bytes]:
    for count, item in enumerate(items):
        if count >= limit:
            return
        yield item


def _tree_entries(data: bytes) -> Iterator[tuple[bytes, str]]:
    """(object id, name) of each entry of a tree object: ``mode name\\0<20-byte id>``."""
    position = 0
    while position < len(data):
        space = data.find(b" ", position)
        nul = data.find(b"\x00", space + 1)
        if space < 0 or nul < 0 or nul + 21 > len(data):
            return
        name = data[space + 1 : nul].decode("utf-8", "replace")
        yield data[nul + 1 : nul + 21], name
        position = nul + 21


def _path(sha: bytes, names: dict[bytes, tuple[bytes, str]]) -> str:
    parts: list[str] = []
    seen = set()
    current = sha
    while current in names and current not in seen and len(parts) < 64:
        seen.add(current)
        parent, name = names[current]
        parts.append(name)
        current = parent
    return "/".join(reversed(parts))
