"""Index every Python file of a repository: cached per file, cache misses parsed in parallel.

The new-task picker and `lmr-author functions DIR` list every function of a repository.
Parsing is the cost (ast.parse runs at ~150k lines/s per core), so results are cached per
file (`lmr_author.cst.cache`, keyed by modification time and size), and cache misses are
parsed on all cores with the per-file index (`lmr_author.cst.index`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Generator, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lmr_author.cst.index import FunctionInfo, list_functions
from lmr_author.util.errors import UserError

if TYPE_CHECKING:
    from lmr_author.cst.cache import FileEntry, FunctionCache

#: Folders never indexed (besides hidden ones such as .git or .venv, and virtual
#: environments, recognised by their pyvenv.cfg). Names like "env" or "build" are not
#: skipped: research repositories use them for real code.
SKIPPED_DIRS = frozenset({"__pycache__", "node_modules", "site-packages"})
_PARALLEL_MIN_FILES = 48


@dataclass
class RepositoryIndex:
    """The functions of every Python file under ``root``."""

    root: Path
    files: dict[str, list[FunctionInfo]]  # relative posix path -> functions, sorted by path
    errors: dict[str, str]  # relative posix path -> why the file was skipped
    lines: int = 0
    cached_files: int = 0

    def functions(self) -> Iterator[tuple[str, FunctionInfo]]:
        for path, infos in self.files.items():
            for info in infos:
                yield path, info

    @property
    def function_count(self) -> int:
        return sum(len(infos) for infos in self.files.values())

    def to_json(self) -> dict[str, Any]:
        return {
            "schema_version": 1,
            "root": str(self.root),
            "files": [
                {"path": path, "functions": [info.to_json() for info in infos]}
                for path, infos in self.files.items()
            ],
            "errors": [{"path": path, "error": error} for path, error in self.errors.items()],
        }


def python_files(root: Path) -> list[str]:
    """Relative posix paths of the ``.py`` files under ``root``, sorted, skipping
    hidden folders, virtual environments and `SKIPPED_DIRS`."""
    found: list[str] = []
    for folder, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(
            d
            for d in dirnames
            if not d.startswith(".")
            and d not in SKIPPED_DIRS
            and not os.path.exists(os.path.join(folder, d, "pyvenv.cfg"))
        )
        rel = os.path.relpath(folder, root)
        prefix = "" if rel == "." else rel.replace(os.sep, "/") + "/"
        found.extend(prefix + name for name in sorted(filenames) if name.endswith(".py"))
    return found


def iter_repository_functions(
    root: Path,
    *,
    use_cache: bool = True,
    on_error: Callable[[str, str], None] | None = None,
    workers: int | None = None,
) -> Iterator[tuple[str, list[FunctionInfo]]]:
    """Yield ``(relative path, functions)`` file by file, in path order, so a UI can show
    results as they come.

    Files that do not parse (or cannot be read) are skipped and passed to ``on_error``
    as ``(relative path, reason)``. Cache misses are parsed in parallel; the cache is
    updated when the iteration ends (or is abandoned).
    """
    root, cache, rels = _open(root, use_cache)
    hits = {rel: cache.lookup(root / rel, rel) for rel in rels}
    misses = [rel for rel, hit in hits.items() if hit is None]
    parsed = _parse_files(root, misses, workers)
    try:
        for rel in rels:
            entry = hits[rel]
            if entry is None:
                entry = next(parsed)
                cache.store(entry)
            if entry.error is not None:
                if on_error is not None:
                    on_error(rel, entry.error)
                continue
            yield rel, [FunctionInfo(*_row_args(row)) for row in entry.rows]
    finally:
        parsed.close()
        if use_cache:
            cache.retain(rels)
            cache.save()


def index_repository(
    root: Path,
    *,
    use_cache: bool = True,
    workers: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> RepositoryIndex:
    """Index every Python file under ``root``; cache misses are parsed in parallel.

    ``progress(done, total)`` is called as files are done (for a progress bar).
    """
    root, cache, rels = _open(root, use_cache)
    entries: dict[str, FileEntry] = {}
    misses: list[str] = []
    for rel in rels:
        hit = cache.lookup(root / rel, rel)
        if hit is None:
            misses.append(rel)
        else:
            entries[rel] = hit
    cached = len(entries)
    if progress is not None:
        progress(cached, len(rels))
    for entry in _parse_files(root, misses, workers):
        entries[entry.rel] = entry
        if progress is not None:
            progress(len(entries), len(rels))
    if use_cache:
        for rel in misses:
            cache.store(entries[rel])
        cache.retain(rels)
        cache.save()
    files: dict[str, list[FunctionInfo]] = {}
    errors: dict[str, str] = {}
    lines = 0
    for rel in rels:
        entry = entries[rel]
        lines += entry.lines
        if entry.error is not None:
            errors[rel] = entry.error
        else:
            files[rel] = [FunctionInfo(*_row_args(row)) for row in entry.rows]
    return RepositoryIndex(root, files, errors, lines=lines, cached_files=cached)


def _open(root: Path, use_cache: bool) -> tuple[Path, FunctionCache, list[str]]:
    """The resolved root, its cache (empty when not used) and its Python files."""
    from lmr_author.cst.cache import FunctionCache

    root = Path(root).resolve()
    if not root.is_dir():
        raise UserError(f"{root} is not a folder.", hint="Pass a repository folder.")
    cache = FunctionCache.load(root) if use_cache else FunctionCache.empty(root)
    return root, cache, python_files(root)


def _parse_files(
    root: Path, rels: list[str], workers: int | None
) -> Generator[FileEntry, None, None]:
    """Index ``rels`` in order, on ``workers`` processes when there are enough files.

    Worker processes are forked, except when other threads run (a Textual worker, say):
    forking a threaded process can deadlock, so they are spawned then.
    """
    jobs = [(str(root), rel) for rel in rels]
    workers = workers or os.cpu_count() or 1
    if workers < 2 or len(jobs) < _PARALLEL_MIN_FILES:
        for job in jobs:
            yield _index_file(job)
        return
    import multiprocessing
    import threading

    method = "fork" if threading.active_count() == 1 and os.name == "posix" else "spawn"
    with _real_stderr():
        pool = multiprocessing.get_context(method).Pool(min(workers, len(jobs)))
    with pool:
        yield from pool.imap(_index_file, jobs, chunksize=16)


@contextmanager
def _real_stderr() -> Iterator[None]:
    """Let multiprocessing see the process's real standard error while it starts.

    Spawning starts a resource-tracker process that is handed ``sys.stderr.fileno()``;
    a running Textual app replaces ``sys.stderr`` with an object whose descriptor is not
    valid, and the start fails with "bad value(s) in fds_to_keep".
    """
    saved = sys.stderr
    if sys.__stderr__ is not None:
        sys.stderr = sys.__stderr__
    try:
        yield
    finally:
        sys.stderr = saved


def _row_args(row: Sequence[Any]) -> tuple[Any, ...]:
    return (*row[:7], tuple(row[7]), *row[8:])


def _index_file(job: tuple[str, str]) -> FileEntry:
    """Parse one file (runs in worker processes): its functions as rows, or the error."""
    from lmr_author.cst.cache import FileEntry

    root, rel = job
    path = os.path.join(root, rel)
    try:
        stat = os.stat(path)
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as error:
        return FileEntry(rel, 0, 0, 0, [], f"cannot read: {error.strerror or error}")
    lines = data.count(b"\n")
    try:
        infos = list_functions(data)
    except (SyntaxError, ValueError) as error:
        where = f"line {error.lineno}: " if isinstance(error, SyntaxError) and error.lineno else ""
        message = error.msg if isinstance(error, SyntaxError) else str(error)
        return FileEntry(rel, stat.st_mtime_ns, stat.st_size, lines, [], f"{where}{message}")
    rows = [
        [
            info.qualname,
            info.name,
            info.class_name,
            info.start_line,
            info.def_line,
            info.end_line,
            info.is_async,
            list(info.decorators),
            info.docstring,
            info.body_lines,
            info.conditional,
        ]
        for info in infos
    ]
    return FileEntry(rel, stat.st_mtime_ns, stat.st_size, lines, rows, None)
