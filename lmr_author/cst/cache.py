"""The function-index cache: one JSON file per repository in the user's cache folder.

A file's entry is reused while its modification time and size are unchanged, which
makes listing a million-line repository a matter of ``stat`` calls. The cache lives in
``cache_dir("functions")`` (platformdirs; ``XDG_CACHE_HOME`` or ``LMR_AUTHOR_CACHE_DIR``
move it), is written atomically, and is keyed by the Python version too, because what
parses depends on the grammar. A cache that cannot be read is ignored, never an error.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lmr_author.util.atomic import atomic_write_text
from lmr_author.util.locations import cache_dir

CACHE_VERSION = 2  # 2: rows end with FunctionInfo.conditional


@dataclass(frozen=True)
class FileEntry:
    """What indexing one file gave: function rows (see `repository._index_file`) or an error."""

    rel: str
    mtime_ns: int
    size: int
    lines: int
    rows: list[list[Any]]
    error: str | None


class FunctionCache:
    """Cached `FileEntry` values of one repository root."""

    def __init__(self, root: Path, entries: dict[str, list[Any]]) -> None:
        self.root = root
        self._entries = entries
        self._dirty = False

    @staticmethod
    def path_for(root: Path) -> Path:
        key = hashlib.sha256(str(root).encode("utf-8", "surrogateescape")).hexdigest()[:24]
        return cache_dir("functions") / f"{key}.json"

    @classmethod
    def empty(cls, root: Path) -> FunctionCache:
        return cls(root, {})

    @classmethod
    def load(cls, root: Path) -> FunctionCache:
        try:
            with open(cls.path_for(root), encoding="utf-8") as handle:
                data = json.load(handle)
        except (OSError, ValueError, RecursionError):  # a damaged cache is an empty one
            return cls.empty(root)
        if (
            not isinstance(data, dict)
            or data.get("version") != CACHE_VERSION
            or data.get("python") != _python_tag()
            or data.get("root") != str(root)
            or not isinstance(data.get("files"), dict)
        ):
            return cls.empty(root)
        return cls(root, data["files"])

    def lookup(self, path: Path, rel: str) -> FileEntry | None:
        """The cached entry of ``rel`` if the file's mtime and size still match."""
        raw = self._entries.get(rel)
        if raw is None:
            return None
        try:
            stat = os.stat(path)
        except OSError:
            return None
        try:
            mtime_ns, size, lines, rows, error = raw
        except (TypeError, ValueError):
            return None
        if stat.st_mtime_ns != mtime_ns or stat.st_size != size:
            return None
        return FileEntry(rel, mtime_ns, size, lines, rows, error)

    def retain(self, rels: list[str]) -> None:
        """Forget the entries of files that no longer exist."""
        keep = set(rels)
        gone = [rel for rel in self._entries if rel not in keep]
        for rel in gone:
            del self._entries[rel]
        self._dirty = self._dirty or bool(gone)

    def store(self, entry: FileEntry) -> None:
        if entry.mtime_ns == 0:
            return  # unreadable file: nothing to key on
        self._entries[entry.rel] = [
            entry.mtime_ns,
            entry.size,
            entry.lines,
            entry.rows,
            entry.error,
        ]
        self._dirty = True

    def save(self) -> None:
        """Write the cache if it changed; a cache folder that cannot be written is ignored."""
        if not self._dirty:
            return
        data = {
            "version": CACHE_VERSION,
            "python": _python_tag(),
            "root": str(self.root),
            "files": self._entries,
        }
        try:
            atomic_write_text(self.path_for(self.root), json.dumps(data, separators=(",", ":")))
        except OSError:
            return
        self._dirty = False


def _python_tag() -> str:
    return f"{sys.version_info.major}.{sys.version_info.minor}"
