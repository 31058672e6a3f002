"""Every copy of a goal function that a solver can read in a repository folder.

What a solver reads is the repository folder as it receives it: Python files anywhere
in it (a vendored library, a second script, a reference implementation, a test-data
generator), build copies (``build/``), backups (``*.orig``, ``*.bak``, ``*~``,
``*.old``, Jupyter's ``.ipynb_checkpoints``), notebooks' code cells, compiled bytecode
(``*.pyc`` of any Python 3 version), a ``.git`` folder's objects (every version of every
file), code blocks of Markdown and LaTeX files, and the paper's text (paper.json, or
paper.pdf without it). Each is compared with the golden goal function by
`lmr_author.leaks.similarity` (source) or by the fingerprint of
`lmr_author.leaks.pyc_reader` (bytecode).

Reading never raises: a file that cannot be read, decoded or parsed holds no copy.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from lmr_author.leaks.code_tokens import CodeFunction, functions_of, has_words, normalized
from lmr_author.leaks.code_tokens import tokens as tokenize
from lmr_author.leaks.git_objects import blob_sha, blobs, git_dir
from lmr_author.leaks.goal_code import GoalCode
from lmr_author.leaks.listings import latex_blocks, markdown_blocks, page_blocks
from lmr_author.leaks.notebook_cells import code_cells
from lmr_author.leaks.pyc_reader import (
    Pyc,
    fingerprint,
    functions,
    overlap,
    plain_qualname,
    read_pyc,
)
from lmr_author.leaks.regular_files import read_regular
from lmr_author.leaks.similarity import MAX_CONTAINER_FACTOR, WARNING_CONTAINMENT, Score

#: Files larger than this are not read (code, not data).
MAX_FILE_BYTES = 20 * 1024 * 1024
#: A file must hold this share of the golden body's attribute and called names to be
#: tokenized at all (a renamed copy keeps them; most files of a repository do not).
WORD_SHARE = 0.6
#: Compiled code at or above this overlap of names and constants with the golden
#: function's is its copy (an error), at or above `BYTECODE_WARNING` a close variant.
BYTECODE_ERROR = 0.85
BYTECODE_WARNING = 0.75
BACKUP_SUFFIXES = (".orig", ".bak", "~", ".old", ".backup", ".save", ".rej")
#: Folders whose files are copies made by tools (a build, Jupyter's checkpoints).
COPY_FOLDERS = {"build": "build", ".ipynb_checkpoints": "backup"}

#: What each kind of copy is, in a finding's words.
KIND_NAMES = {
    "source": "Python file",
    "build": "build copy",
    "backup": "backup copy",
    "notebook": "notebook",
    "bytecode": "compiled bytecode",
    "git": "git history",
    "document": "code block",
    "paper": "paper",
    "installed": "installed package",
}


@dataclass(frozen=True)
class Copy:
    """A piece of readable code that holds (or is) a goal function."""

    implementation: int
    goal: str  # the goal's qualified name
    kind: str  # a key of KIND_NAMES
    file: str  # relative to the folder scanned (with its prefix)
    where: str  # "lines 3-20", "cell 4, lines 1-9", "object 1a2b3c4d5e (x.py)", "page 5"
    function: str  # the copy's qualified name ("" for a cell or block as a whole)
    similarity: float  # token similarity, or the overlap of compiled fingerprints
    containment: float = 0.0
    level: str = ""  # "error", "warning", or "" for a near miss
    detail: str = ""
    fix: str = ""  # "delete" (the file), "mask" (the function at ``line``), or ""
    line: int = 0

    @property
    def kind_name(self) -> str:
        return KIND_NAMES.get(self.kind, self.kind)

    @property
    def strength(self) -> float:
        return max(self.similarity, self.containment)

    def describe(self) -> str:
        """``similarity 0.98`` or its bytecode and containment forms."""
        if self.kind == "bytecode":
            text = f"names and constants {self.similarity:.2f} alike"
        else:
            text = f"similarity {self.similarity:.2f}"
            if self.containment > self.similarity and self.containment >= WARNING_CONTAINMENT:
                text += f", holds {self.containment:.0%} of the golden body"
        return text


@dataclass
class _Scan:
    root: Path
    prefix: str
    goals: list[GoalCode]
    skip: set[tuple[str, str]]  # (file relative to root, qualname) of the goals themselves
    floor: float | None
    found: list[Copy] = field(default_factory=list)
    seen_sources: dict[str, str] = field(default_factory=dict)  # path -> git blob id

    def name(self, relative: str) -> str:
        return f"{self.prefix}/{relative}" if self.prefix else relative


def find_copies(
    root: Path,
    goals: Iterable[GoalCode],
    *,
    prefix: str = "",
    skip: Iterable[tuple[str, str]] = (),
    floor: float | None = None,
    paper: bool = True,
    history: bool = True,
) -> list[Copy]:
    """The copies of ``goals`` readable under ``root`` (a repository folder).

    ``prefix`` is put before the paths the copies name (the repository folder's name in
    a task); ``skip`` names the goal functions themselves, (file relative to ``root``,
    qualified name), which are masked and not copies. With ``floor`` (a similarity),
    near misses down to it are given too, with ``level`` "".
    """
    comparable = [goal for goal in goals if goal.comparable]
    if not comparable:
        return []
    scan = _Scan(root, prefix, comparable, set(skip), floor)
    for relative, path in _files(root):
        _scan_file(scan, relative, path)
    if paper:
        _scan_paper(scan)
    if history and (objects := git_dir(root)) is not None:
        _scan_history(scan, objects)
    return sorted(scan.found, key=lambda c: (c.implementation, -c.strength, c.file, c.where))


def _files(root: Path) -> Iterator[tuple[str, Path]]:
    """(relative POSIX path, path) of every regular file under ``root``, no symlink
    followed, ``.git`` left to `_scan_history`."""
    for folder, dirs, names in os.walk(root, followlinks=False):
        base = Path(folder)
        dirs[:] = sorted(d for d in dirs if d != ".git" and not (base / d).is_symlink())
        for name in sorted(names):
            path = base / name
            if path.is_symlink():
                continue
            yield path.relative_to(root).as_posix(), path


def _kind(relative: str) -> str | None:
    """How a file is read: its kind of copy, or None when it holds no code."""
    pure = PurePosixPath(relative)
    name = pure.name
    folders = set(pure.parts[:-1])
    if name.endswith((".pyc", ".pyo")):
        return "bytecode"
    if name.endswith(BACKUP_SUFFIXES):
        return "backup"
    if name.endswith(".ipynb"):
        return "notebook"
    if name.endswith((".py", ".pyw")):
        for folder, kind in COPY_FOLDERS.items():
            if folder in folders:
                return kind
        return "source"
    if name.endswith((".md", ".markdown", ".tex")):
        return "document"
    return None


def _read(path: Path) -> bytes | None:
    return read_regular(path, MAX_FILE_BYTES)


def _scan_file(scan: _Scan, relative: str, path: Path) -> None:
    kind = _kind(relative)
    if kind is None:
        return
    data = _read(path)
    if data is None:
        return
    if kind == "bytecode":
        _scan_bytecode(scan, relative, path, data)
        return
    text = data.decode("utf-8", "replace")
    wanted = _wanted(scan, text)
    if not wanted:
        return
    disposable = kind in ("build", "backup") or ".ipynb_checkpoints" in relative
    name = scan.name(relative)
    if kind == "notebook":
        for cell in code_cells(text):
            where = f"cell {cell.number}"
            _compare_text(scan, wanted, cell.source, kind, name, where, disposable, whole=True)
    elif kind == "document":
        reader = latex_blocks if relative.endswith(".tex") else markdown_blocks
        for block in reader(text):
            offset = block.line - 1
            _compare_text(
                scan, wanted, block.text, kind, name, "", False, whole=True, offset=offset
            )
    else:
        if kind == "source":
            scan.seen_sources[relative] = blob_sha(data)
        _compare_text(scan, wanted, text, kind, name, "", disposable, relative=relative)


def _wanted(scan: _Scan, text: str) -> list[GoalCode]:
    share = WORD_SHARE if scan.floor is None else WORD_SHARE / 2
    return [goal for goal in scan.goals if has_words(text, set(goal.words), share)]


def _compare_text(
    scan: _Scan,
    goals: list[GoalCode],
    text: str,
    kind: str,
    file: str,
    where: str,
    disposable: bool,
    *,
    relative: str = "",
    flat: bool = False,
    whole: bool = False,
    offset: int = 0,
) -> None:
    """Compare every function of ``text`` with ``goals``; with ``whole`` (a cell, a
    block), the text as a whole too when no function of it is a copy. ``offset`` is
    added to line numbers (a block's first line in its document)."""
    found = tokenize(text)
    reported = False
    first = len(scan.found)
    for unit in functions_of(found, flat=flat):
        for goal in goals:
            if (relative, unit.qualname) in scan.skip or (
                relative == goal.goal_file and unit.qualname == goal.qualname
            ):
                continue  # the goal itself
            sequence = normalized(found[unit.start : _cap(unit, goal, flat)])
            score = goal.golden.compare(sequence, unit.name, floor=scan.floor)
            if score is None or not (score.level or scan.floor is not None):
                continue
            reported = reported or bool(score.level)
            fix = "delete" if disposable else ("mask" if kind == "source" else "")
            lines = f"lines {unit.line + offset}-{unit.end_line + offset}"
            scan.found.append(
                _copy(goal, kind, file, _join(where, lines), unit.qualname, score, fix, unit.line)
            )
    _drop_enclosing(scan.found, first)
    if not whole or reported or not found:
        return
    for goal in goals:
        score = goal.golden.compare(normalized(found), floor=scan.floor)
        if score is not None and (score.level or scan.floor is not None):
            lines = f"lines {found[0].line + offset}-{found[-1].line + offset}"
            fix = "delete" if disposable else ""
            scan.found.append(_copy(goal, kind, file, _join(where, lines), "", score, fix, 0))


def _drop_enclosing(found: list[Copy], first: int) -> None:
    """A function reported only because it holds a reported nested one is left out: the
    nested one is the copy (and the one to mask)."""
    fresh = found[first:]
    nested = {(c.goal, c.function) for c in fresh if c.level}
    found[first:] = [
        c
        for c in fresh
        if not any(goal == c.goal and name.startswith(c.function + ".") for goal, name in nested)
    ]


def _join(where: str, lines: str) -> str:
    return f"{where}, {lines}" if where else lines


def _cap(unit: CodeFunction, goal: GoalCode, flat: bool) -> int:
    """Where a function of flat text (a PDF's, whose end is unknown) is cut off."""
    if not flat:
        return unit.end
    return min(unit.end, unit.start + int(MAX_CONTAINER_FACTOR * len(goal.golden.sequence)) + 20)


def _copy(
    goal: GoalCode,
    kind: str,
    file: str,
    where: str,
    function: str,
    score: Score,
    fix: str,
    line: int,
) -> Copy:
    return Copy(
        goal.implementation,
        goal.qualname,
        kind,
        file,
        where,
        function,
        score.similarity,
        score.containment,
        score.level or "",
        fix=fix if score.level else "",
        line=line,
    )


def _scan_paper(scan: _Scan) -> None:
    from lmr_author.leaks.paper_pages import paper_pages

    found = paper_pages(scan.root)
    if found is None:
        return
    file, pages = found
    everything = "\n".join(pages.values())
    goals = [goal for goal in scan.goals if has_words(everything, set(goal.words), WORD_SHARE)]
    for block in page_blocks(pages) if goals else []:
        where = f"page {block.page}"
        _compare_text(scan, goals, block.text, "paper", scan.name(file), where, False, flat=True)


def _scan_bytecode(scan: _Scan, relative: str, path: Path, data: bytes) -> None:
    pyc = read_pyc(data)
    name = scan.name(relative)
    source = _source_of(relative)
    golden_named = "_golden" in PurePosixPath(relative).name
    note = _bytecode_note(pyc, source, path, golden_named)
    matched = False
    if pyc.module is not None:
        for compiled in functions(pyc.module):
            qualname = plain_qualname(compiled.qualname)
            print_ = fingerprint(compiled.code)
            for goal in scan.goals:
                if goal.compiled is None:
                    continue
                alike = round(overlap(goal.compiled, print_), 3)
                level = _bytecode_level(alike)
                floor = scan.floor if scan.floor is not None else 1.1
                if not level and alike < floor:
                    continue
                matched = matched or bool(level)
                scan.found.append(
                    Copy(
                        goal.implementation,
                        goal.qualname,
                        "bytecode",
                        name,
                        f"Python {pyc.version_text}, line {compiled.code.first_line}",
                        qualname,
                        alike,
                        level=level,
                        detail=note,
                        fix="delete" if level else "",
                    )
                )
    if golden_named and not matched:
        # Compiled from a golden file: the answer whatever could be read of it.
        for goal in scan.goals:
            scan.found.append(
                Copy(
                    goal.implementation,
                    goal.qualname,
                    "bytecode",
                    name,
                    f"Python {pyc.version_text}",
                    "",
                    0.0,
                    level="error",
                    detail=note,
                    fix="delete",
                )
            )
            break


def _bytecode_level(alike: float) -> str:
    if alike >= BYTECODE_ERROR:
        return "error"
    return "warning" if alike >= BYTECODE_WARNING else ""


def _source_of(relative: str) -> str:
    """``pkg/__pycache__/mod.cpython-310.pyc`` -> ``pkg/mod.py`` (``x.pyc`` -> ``x.py``)."""
    pure = PurePosixPath(relative)
    stem = pure.name.split(".", 1)[0]
    folder = pure.parent.parent if pure.parent.name == "__pycache__" else pure.parent
    return (folder / f"{stem}.py").as_posix()


def _bytecode_note(pyc: Pyc, source: str, path: Path, golden_named: bool) -> str:
    if golden_named:
        return (
            f"compiled from {PurePosixPath(source).name}, a golden file the solver has no copy of"
        )
    if pyc.problem:
        return pyc.problem
    module = path.parent.parent if path.parent.name == "__pycache__" else path.parent
    py = module / PurePosixPath(source).name
    try:
        size = py.stat().st_size
    except OSError:
        return f"compiled from {PurePosixPath(source).name}, which is not in the folder"
    if pyc.source_size is not None and pyc.source_size != size % (1 << 32):
        return (
            f"compiled from another version of {PurePosixPath(source).name} "
            f"({pyc.source_size} bytes; the file has {size})"
        )
    return ""


def _scan_history(scan: _Scan, objects: Path) -> None:
    name = scan.name(".git")
    for blob in blobs(objects):
        if blob.path and scan.seen_sources.get(blob.path) == blob.sha:
            continue  # the file as it is now: compared already
        text = blob.data.decode("utf-8", "replace")
        wanted = _wanted(scan, text)
        if not wanted:
            continue
        where = f"object {blob.sha[:10]}" + (f" ({blob.path})" if blob.path else "")
        if blob.path.endswith(".ipynb"):
            for cell in code_cells(text):
                cell_where = f"{where}, cell {cell.number}"
                _compare_text(scan, wanted, cell.source, "git", name, cell_where, False, whole=True)
        else:
            _compare_text(scan, wanted, text, "git", name, where, False)
