"""Rules about the unit tests and their fixtures.

Published tasks ship fixtures that are Git LFS pointer files (the data never arrived)
and tests that cannot fail: they catch their own assertions and only log "Test Passed"
or "Test Failed" (the legacy log protocol of ``design.md``). Both make a verdict
meaningless, so the validator says so before anyone runs a benchmark.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

from lmr_author.domain import replay_codec
from lmr_author.sandbox.replay import replay_dir
from lmr_author.util import lfs
from lmr_author.util.python_parse import parse_python
from lmr_author.validate.context import SourceFile, TaskContext
from lmr_author.validate.findings import Finding
from lmr_author.validate.rules import rule

_VERDICT_WORDS = re.compile(r"\b(passed|failed)\b", re.IGNORECASE)
_SWALLOWING = {"Exception", "BaseException", "AssertionError"}
_EXITS = {"exit", "_exit", "quit"}


def unit_tests(ctx: TaskContext) -> Iterator[tuple[str, str, SourceFile]]:
    """(goal function, class name, source) of each unit test that exists and parses."""
    if ctx.task is None:
        return
    for impl in ctx.task.implementations:
        path = ctx.safe_path(impl.repo_dir, impl.unit_test_file)
        if path is None:
            continue
        source = ctx.source(path)
        if source.text is not None and source.functions is not None:
            yield impl.goal_function, impl.class_name, source


@rule("lfs-pointer", "error", "a file is a Git LFS pointer, so its data is missing")
def check_lfs_pointer(ctx: TaskContext) -> Iterator[Finding]:
    test_texts = _unit_test_texts(ctx)
    fixture_folders = {folder / "fixtures" for folder in _unit_test_folders(ctx)}
    for entry in ctx.tree():
        if entry.is_symlink or entry.size > lfs.MAX_POINTER_BYTES:
            continue
        pointer = lfs.read_pointer(entry.path)
        if pointer is None:
            continue
        detail = f" ({pointer.size:,} bytes)" if pointer.size is not None else ""
        # An error only when a test needs it: a replay fixture, or a file a test names.
        # Old data beside the tests that no test reads is reported, and blocks nothing.
        used = any(folder in entry.path.parents for folder in fixture_folders) or any(
            _reads(test, text, entry.path) for test, text in test_texts
        )
        yield ctx.finding(
            "lfs-pointer",
            f"{'fixture' if used else 'file'} is a Git LFS pointer; the data{detail} "
            "is missing" + ("" if used else " (no unit test of the task reads it)"),
            file=ctx.rel(entry.path),
            severity="error" if used else "warning",
            hint="Run 'git lfs pull' in the source repository and copy the real file here.",
        )


def _unit_test_texts(ctx: TaskContext) -> list[tuple[Path, str]]:
    return [
        (source.path, source.text) for _, _, source in unit_tests(ctx) if source.text is not None
    ]


def _reads(test: Path, text: str, data: Path) -> bool:
    """Whether the test at ``test`` names ``data``: by its path from the test's folder, or
    by its name when it lies in that folder's tree (a same-named file elsewhere is not it)."""
    folder = test.parent
    if folder in data.parents and data.name in text:
        return True
    try:
        relative = data.relative_to(folder.parent).as_posix()
    except ValueError:
        return False
    return relative in text


def _unit_test_folders(ctx: TaskContext) -> set[Path]:
    folders: set[Path] = set()
    if ctx.task is None:
        return folders
    for impl in ctx.task.implementations:
        path = ctx.safe_path(impl.repo_dir, impl.unit_test_file)
        if path is not None:
            folders.add(path.parent)
    return folders


@rule(
    "test-never-fails",
    "warning",
    "the unit test has no uncaught assertion (legacy Passed/Failed logs only)",
)
def check_test_can_fail(ctx: TaskContext) -> Iterator[Finding]:
    seen: set[Path] = set()
    for _, _, source in unit_tests(ctx):
        if source.path in seen or source.text is None:
            continue
        seen.add(source.path)
        try:
            tree = parse_python(source.text)
        except (SyntaxError, ValueError, RecursionError):
            continue
        shape = _TestShape()
        shape.visit(tree)
        if shape.can_fail:
            continue
        if shape.logs_verdict:
            message = (
                "the unit test never fails: its checks are caught and it only logs "
                "Passed/Failed (the legacy log protocol)"
            )
        else:
            message = "the unit test can never fail: it has no assert, raise or non-zero exit"
        yield ctx.finding(
            "test-never-fails",
            message,
            file=ctx.rel(source.path),
            hint="Let a failed check raise (assert) so the exit code gives the verdict.",
        )


class _TestShape(ast.NodeVisitor):
    """Does a test file have a way to fail that is not swallowed by a try/except?"""

    def __init__(self) -> None:
        self.can_fail = False
        self.logs_verdict = False
        self._swallowed = 0

    def _fails(self) -> None:
        if self._swallowed == 0:
            self.can_fail = True

    def visit_Try(self, node: ast.Try) -> None:
        swallows = any(_swallows(handler) for handler in node.handlers)
        self._swallowed += swallows
        for statement in node.body:
            self.visit(statement)
        self._swallowed -= swallows
        for part in (*node.handlers, *node.orelse, *node.finalbody):
            self.visit(part)

    visit_TryStar = visit_Try  # type: ignore[assignment]

    def visit_Assert(self, node: ast.Assert) -> None:
        self._fails()
        self.generic_visit(node)

    def visit_Raise(self, node: ast.Raise) -> None:
        self._fails()
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        name = _call_name(node.func)
        # A check is something that raises when the result is wrong: self.assertEqual,
        # np.testing.assert_allclose, self.fail. ``unittest.main()`` is not a check: it
        # only runs test methods, which fail only if a check in them can raise.
        checks = name.startswith("assert") or name == "fail"
        exits_non_zero = name in _EXITS and bool(node.args) and not _is_zero(node.args[0])
        if checks or exits_non_zero:
            self._fails()
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, str) and _VERDICT_WORDS.search(node.value):
            self.logs_verdict = True


def _call_name(func: ast.expr) -> str:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return ""


def _is_zero(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value in (0, None, False)


def _swallows(handler: ast.ExceptHandler) -> bool:
    """A handler that catches assertion errors and neither re-raises nor exits."""
    kind = handler.type
    names: list[str] = []
    if kind is None:
        names = ["BaseException"]
    elif isinstance(kind, ast.Tuple):
        names = [_call_name(element) for element in kind.elts]
    else:
        names = [_call_name(kind)]
    if not _SWALLOWING.intersection(names):
        return False
    for node in ast.walk(ast.Module(body=handler.body, type_ignores=[])):
        if isinstance(node, ast.Raise):
            return False
        if isinstance(node, ast.Call) and _call_name(node.func) in _EXITS:
            return False
    return True


@rule(
    "test-missing-target",
    "warning",
    "the unit test never references the goal function or its class",
)
def check_test_target(ctx: TaskContext) -> Iterator[Finding]:
    for goal_function, class_name, source in unit_tests(ctx):
        assert source.text is not None
        try:
            tree = parse_python(source.text)
        except (SyntaxError, ValueError, RecursionError):
            continue
        names = _referenced_names(tree)
        targets = {goal_function}
        if class_name:
            targets.add(class_name.rsplit(".", 1)[-1])
        if targets & names:
            continue
        shown = " or ".join(f"'{t}'" for t in sorted(targets))
        yield ctx.finding(
            "test-missing-target",
            f"the unit test never mentions {shown}, so it may not test the goal function",
            file=ctx.rel(source.path),
            hint="Import and call the goal function (or its class) in the test.",
        )


def _referenced_names(tree: ast.AST) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.Attribute):
            names.add(node.attr)
        elif isinstance(node, ast.alias):
            names.update(node.name.split("."))
            if node.asname:
                names.add(node.asname)
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and node.value.isidentifier()
        ):
            names.add(node.value)
    return names


#: String constants that look like a data file a test reads (with a folder, to avoid
#: guessing at bare names such as "results.json" that a test may write).
_FIXTURE_PATH = re.compile(
    r"^(?:\./)?[\w.-]+(?:/[\w.-]+)+\.(?:npy|npz|pt|pth|pkl|pickle|json|jsonl|csv|tsv|txt|"
    r"bin|h5|hdf5|safetensors|parquet|arrow|tar|gz|zip)$"
)


@rule(
    "test-missing-fixture",
    "warning",
    "the unit test names a data file that is not in the repository folder",
)
def check_test_fixtures(ctx: TaskContext) -> Iterator[Finding]:
    if ctx.task is None:
        return
    seen: set[Path] = set()
    for impl in ctx.task.implementations:
        path = ctx.safe_path(impl.repo_dir, impl.unit_test_file)
        if path is None or path in seen:
            continue
        seen.add(path)
        source = ctx.source(path)
        if source.text is None or source.functions is None:
            continue
        try:
            tree = parse_python(source.text)
        except (SyntaxError, ValueError, RecursionError):
            continue
        for node in ast.walk(tree):
            if not isinstance(node, ast.Constant) or not isinstance(node.value, str):
                continue
            name = node.value
            if not _FIXTURE_PATH.match(name) or "/logs/" in f"/{name}":
                continue
            bases = (impl.repo_dir, path.parent)
            candidates = [ctx.safe_path(base, name) for base in bases]
            if any(c is not None and _exists(c) for c in candidates):
                continue
            yield ctx.finding(
                "test-missing-fixture",
                f"the unit test reads '{name}', which is not in the repository folder",
                file=ctx.rel(path),
                where=f"line {node.lineno}",
                hint="Add the fixture (tests run from the repository folder) or fix the path.",
            )


def _exists(path: Path) -> bool:
    try:
        return path.exists()
    except (OSError, ValueError):
        return False


@rule(
    "replay-tests-nothing",
    "error",
    "every recorded call returned None and changed none of its inputs",
)
def check_replay_tests_something(ctx: TaskContext) -> Iterator[Finding]:
    """Replay fixtures whose outcomes are all "None, nothing changed" pass any function
    that returns None: the proof (golden passes, masked fails) can hold and the test still
    tells nothing (issue 30: an optimizer's step recorded before in-place changes counted)."""
    if ctx.task is None:
        return
    for impl in ctx.task.implementations:
        folder = replay_dir(ctx.task.path, impl.unit_test_file)
        cases = sorted(folder.glob("*.json")) if folder.is_dir() else []
        if replay_codec.show_no_work([_read(case) for case in cases]):
            yield ctx.finding(
                "replay-tests-nothing",
                f"every recorded call of {impl.goal_function} ({len(cases)}) returned None and "
                "changed none of its inputs: the test passes any function that returns None",
                file=ctx.rel(folder),
                hint=(
                    "Record again with a driver whose calls show the goal's work: a result "
                    "it returns, or inputs it changes in place (parameters, state)."
                ),
            )


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError:
        return b""  # unreadable: another rule's business
