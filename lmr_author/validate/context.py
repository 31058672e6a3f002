"""What the rules of one task share: its parsed info.json, its model, cached file reads.

Reading is done once per task and never raises: every problem becomes either a
finding (for info.json) or a `SourceFile.problem` that the rules report. Paths taken
from info.json are only opened after `TaskContext.safe_path` has checked that they stay
inside the task folder.
"""

from __future__ import annotations

import io
import os
import re
import tokenize
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any

from lmr_author.cst.index import FunctionInfo, list_functions
from lmr_author.domain.task import INFO_FILE, Task, TaskLoadError, task_from_info
from lmr_author.util.errors import UserError
from lmr_author.util.json_input import parse_json
from lmr_author.validate.findings import Finding, Severity
from lmr_author.validate.severities import DEFAULT_SEVERITY

#: Source files larger than this are not read (a goal file is code, not data).
MAX_SOURCE_BYTES = 20 * 1024 * 1024
_NEWLINES = re.compile(r"\r\n|\r|\n")
_MISSING = object()


@dataclass
class SourceFile:
    """A Python file read for the rules; ``problem`` says why it has no text."""

    path: Path
    text: str | None = None
    problem: str | None = None
    #: ``missing`` (no such file or not a regular file), ``unreadable`` (I/O error),
    #: ``undecodable`` (binary, too large, bad encoding), or "" when there is text.
    problem_kind: str = ""
    _lines: list[str] | None = field(default=None, repr=False)
    _functions: list[FunctionInfo] | None = field(default=None, repr=False)
    _syntax_error: str | None = field(default=None, repr=False)
    _syntax_line: int | None = field(default=None, repr=False)
    _parsed: bool = field(default=False, repr=False)

    @property
    def lines(self) -> list[str]:
        """The lines, without line endings; line N is ``lines[N - 1]``."""
        if self._lines is None:
            self._lines = _NEWLINES.split(self.text) if self.text is not None else []
        return self._lines

    def _parse(self) -> None:
        if self._parsed:
            return
        self._parsed = True
        if self.text is None:
            return
        try:
            self._functions = list_functions(self.text)
        except SyntaxError as error:
            self._syntax_error = str(error.msg)
            self._syntax_line = error.lineno
        except (ValueError, RecursionError, MemoryError) as error:
            self._syntax_error = f"cannot be parsed: {error}"

    @property
    def functions(self) -> list[FunctionInfo] | None:
        """The functions of the file, or None when it does not parse."""
        self._parse()
        return self._functions

    @property
    def syntax_error(self) -> str | None:
        """Why the text does not parse as Python, or None."""
        self._parse()
        return self._syntax_error

    @property
    def syntax_line(self) -> int | None:
        self._parse()
        return self._syntax_line


@dataclass(frozen=True)
class TreeEntry:
    """A file or symlink in the task folder (``.git`` folders are skipped)."""

    path: Path
    size: int
    is_symlink: bool


class TaskContext:
    """One task folder as the rules see it."""

    def __init__(self, task_dir: Path) -> None:
        self.path = task_dir
        self.root = _resolve(task_dir)
        self.name = task_dir.name or str(task_dir)
        self.document: Any = _MISSING
        self.raw: dict[str, Any] | None = None
        self.load_findings: list[Finding] = []
        self.duplicate_keys: list[str] = []
        self.task: Task | None = None
        self.model_error: TaskLoadError | None = None
        self._sources: dict[Path, SourceFile] = {}
        self._tree: list[TreeEntry] | None = None
        self._load()

    # -- findings ---------------------------------------------------------------------
    def finding(
        self,
        rule_id: str,
        message: str,
        *,
        file: str = "",
        where: str = "",
        hint: str = "",
        severity: Severity | None = None,
    ) -> Finding:
        """A finding of ``rule_id`` with the rule's default severity unless given."""
        level: Severity = severity or DEFAULT_SEVERITY.get(rule_id, "error")
        return Finding(rule_id, level, message, file=file, where=where, hint=hint)

    @property
    def has_document(self) -> bool:
        return self.document is not _MISSING

    # -- loading info.json ------------------------------------------------------------
    def _load(self) -> None:
        info = self.path / INFO_FILE
        try:
            if not info.exists():
                self.load_findings.append(
                    self.finding(
                        "missing-path",
                        "no info.json: this folder looks like a task but has no metadata",
                        file=INFO_FILE,
                        hint="Write info.json (see schemas/info.schema.json).",
                    )
                )
                return
            if not info.is_file():
                self._unreadable(INFO_FILE, "info.json is not a regular file")
                return
            raw = info.read_bytes()
        except OSError as error:
            self._unreadable(INFO_FILE, f"cannot read info.json ({error.strerror or error})")
            return
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError as error:
            self.load_findings.append(
                self.finding(
                    "json-syntax",
                    f"info.json is not UTF-8 text (bad byte at offset {error.start})",
                    file=INFO_FILE,
                    hint="Save info.json as UTF-8 JSON.",
                )
            )
            return
        try:  # the JSON input owner: syntax, depth and numbers Python refuses
            self.document = parse_json(text, what="info.json", object_pairs_hook=self._pairs)
        except UserError as error:
            self.load_findings.append(
                self.finding(
                    "json-syntax",
                    error.message,
                    file=INFO_FILE,
                    where=error.where or "",
                    hint="Fix the JSON syntax there; info.json holds a flat object of task fields.",
                )
            )
            return
        if not isinstance(self.document, dict):
            return  # the schema rule reports it
        self.raw = self.document
        try:
            self.task = task_from_info(self.root, self.document)
        except TaskLoadError as error:
            self.model_error = error
        except Exception as error:  # a shape the model did not foresee
            self.model_error = TaskLoadError(f"cannot be read as a task: {error}", file=info)

    def _unreadable(self, file: str, message: str) -> None:
        self.load_findings.append(
            self.finding(
                "unreadable-file",
                message,
                file=file,
                hint="Check the file's type and permissions.",
            )
        )

    def _pairs(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        result: dict[str, Any] = {}
        for key, value in pairs:
            if key in result:
                self.duplicate_keys.append(key)
            result[key] = value
        return result

    # -- paths ------------------------------------------------------------------------
    def rel(self, path: Path) -> str:
        """``path`` relative to the task folder, with forward slashes."""
        for base in (self.path, self.root):
            try:
                return path.relative_to(base).as_posix()
            except ValueError:
                continue
        return str(path)

    def escape_reason(self, base: Path, relative: str) -> str | None:
        """Why ``base/relative`` leaves the task folder, or None when it stays inside."""
        if "\x00" in relative:
            return "contains a NUL character"
        if PurePosixPath(relative).is_absolute() or PureWindowsPath(relative).is_absolute():
            return "is an absolute path"
        if PureWindowsPath(relative).drive:
            return "names a drive"
        if ".." in PurePosixPath(relative.replace("\\", "/")).parts:
            return "goes up with '..'"
        if not self.inside(base / relative):
            return "leaves the task folder through a symbolic link"
        return None

    def inside(self, path: Path) -> bool:
        """True when ``path``, with symbolic links followed, is inside the task folder."""
        resolved = _resolve(path)
        return resolved == self.root or self.root in resolved.parents

    def safe_path(self, base: Path, relative: str) -> Path | None:
        """``base/relative`` when it is safe to open (inside the task folder), else None."""
        if not relative or self.escape_reason(base, relative) is not None:
            return None
        return base / relative

    # -- files ------------------------------------------------------------------------
    def source(self, path: Path) -> SourceFile:
        """Read a Python file once; never raises."""
        cached = self._sources.get(path)
        if cached is None:
            cached = _read_source(path)
            self._sources[path] = cached
        return cached

    def tree(self) -> list[TreeEntry]:
        """Every file and symbolic link under the task folder, read once."""
        if self._tree is None:
            self._tree = _walk(self.path)
        return self._tree


def _resolve(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError, ValueError):
        return path.absolute()


def _read_source(path: Path) -> SourceFile:
    try:
        if not path.exists():
            return SourceFile(path, problem="does not exist", problem_kind="missing")
        if not path.is_file():
            return SourceFile(path, problem="is not a regular file", problem_kind="missing")
        if path.stat().st_size > MAX_SOURCE_BYTES:
            return SourceFile(
                path, problem="is too large to be a Python source file", problem_kind="undecodable"
            )
        raw = path.read_bytes()
    except (OSError, ValueError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        return SourceFile(path, problem=f"cannot be read ({reason})", problem_kind="unreadable")
    if b"\x00" in raw:
        return SourceFile(
            path, problem="is a binary file, not Python source", problem_kind="undecodable"
        )
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
        text = raw.decode(encoding)
    except (SyntaxError, LookupError, UnicodeDecodeError) as error:
        return SourceFile(
            path, problem=f"is not readable text ({error})", problem_kind="undecodable"
        )
    return SourceFile(path, text=text.removeprefix("\ufeff"))


def _walk(top: Path) -> list[TreeEntry]:
    entries: list[TreeEntry] = []
    stack = [top]
    while stack:
        folder = stack.pop()
        try:
            with os.scandir(folder) as iterator:
                items = list(iterator)
        except OSError:
            continue
        for item in items:
            try:
                if item.is_symlink():
                    entries.append(TreeEntry(Path(item.path), 0, True))
                elif item.is_dir(follow_symlinks=False):
                    if item.name != ".git":
                        stack.append(Path(item.path))
                elif item.is_file(follow_symlinks=False):
                    size = item.stat(follow_symlinks=False).st_size
                    entries.append(TreeEntry(Path(item.path), size, False))
            except OSError:
                continue
    return entries
