"""Rules about the goal functions: present, parseable, masked, and the only difference.

They compare the masked goal file in the repository with the golden file, using the
ast-based function index (`lmr_author.cst.index`), which is fast enough for whole
benchmarks.
"""

from __future__ import annotations

import ast
import difflib
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from lmr_author.cst.index import FunctionInfo
from lmr_author.cst.locate import goal_candidates, not_found_error
from lmr_author.domain.task import Implementation
from lmr_author.util.python_parse import parse_python
from lmr_author.validate.context import SourceFile, TaskContext
from lmr_author.validate.findings import Finding
from lmr_author.validate.rules import rule

_MAX_HUNKS = 3


@dataclass(frozen=True)
class GoalFiles:
    """One implementation with its golden and goal files (None when unsafe to open)."""

    position: int
    impl: Implementation
    golden: SourceFile | None
    goal: SourceFile | None


def goal_files(ctx: TaskContext) -> Iterator[GoalFiles]:
    if ctx.task is None:
        return
    for position, impl in enumerate(ctx.task.implementations):
        golden = ctx.safe_path(ctx.root, impl.golden_file)
        goal = ctx.safe_path(impl.repo_dir, impl.goal_file)
        yield GoalFiles(
            position,
            impl,
            ctx.source(golden) if golden is not None else None,
            ctx.source(goal) if goal is not None else None,
        )


def matching(functions: list[FunctionInfo], name: str, class_name: str) -> list[FunctionInfo]:
    """The definitions the goal resolver chooses among (`cst.locate.goal_candidates`):
    homonyms nested in other functions or classes, and ``if``/``try`` variants next to
    an unconditional definition, are not the goal."""
    return goal_candidates(functions, name, class_name)


@rule("syntax-error", "error", "the golden, goal or unit test file is not parseable Python")
def check_syntax(ctx: TaskContext) -> Iterator[Finding]:
    if ctx.task is None:
        return
    sources: dict[Path, str] = {}
    for impl in ctx.task.implementations:
        for base, relative, label in (
            (ctx.root, impl.golden_file, "golden file"),
            (impl.repo_dir, impl.goal_file, "goal file"),
            (impl.repo_dir, impl.unit_test_file, "unit test"),
        ):
            path = ctx.safe_path(base, relative)
            if path is not None:
                sources.setdefault(path, label)
    for path, label in sources.items():
        source = ctx.source(path)
        rel = ctx.rel(path)
        if source.problem_kind == "unreadable":
            yield ctx.finding(
                "unreadable-file",
                f"the {label} {source.problem}",
                file=rel,
                hint="Check the file's permissions.",
            )
        elif source.problem_kind == "undecodable":
            yield ctx.finding(
                "syntax-error",
                f"the {label} {source.problem}",
                file=rel,
                hint="Replace it with the Python source file.",
            )
        elif source.text is not None and source.syntax_error is not None:
            line = source.syntax_line
            yield ctx.finding(
                "syntax-error",
                f"the {label} does not parse: {source.syntax_error}",
                file=rel,
                where=f"line {line}" if line else "",
                hint="Fix the Python syntax there.",
            )


@rule("function-not-found", "error", "the goal function is absent from the golden or goal file")
def check_function_found(ctx: TaskContext) -> Iterator[Finding]:
    for item in goal_files(ctx):
        impl = item.impl
        for label, source in (("golden file", item.golden), ("goal file", item.goal)):
            if source is None or source.functions is None:
                continue
            found = matching(source.functions, impl.goal_function, impl.class_name)
            rel = ctx.rel(source.path)
            if not found:
                names = [f.qualname for f in source.functions]
                close = difflib.get_close_matches(impl.qualified_name, names, n=1, cutoff=0.6)
                hint = (f"Did you mean '{close[0]}'? " if close else "") + (
                    "Check goal_function and class_name in info.json."
                )
                if impl.class_name.rpartition(".")[2] == impl.goal_function:
                    # A class named as its own goal (published 10-TimeDistill, 21-TimeMixer).
                    why = not_found_error(source.functions, impl.goal_function, impl.class_name)
                    hint = f"{why.message} {why.hint}"
                yield ctx.finding(
                    "function-not-found",
                    f"goal function '{impl.qualified_name}' of implementation {impl.index} is "
                    f"not defined in the {label}",
                    file=rel,
                    hint=hint,
                )
            elif len(found) > 1:
                lines = ", ".join(str(f.def_line) for f in found)
                yield ctx.finding(
                    "ambiguous-function",
                    f"goal function '{impl.qualified_name}' is defined {len(found)} times at "
                    f"the same level in the {label} (lines {lines})",
                    file=rel,
                    where=f"line {found[-1].def_line}",
                    hint="Keep one definition or rename the others; until then mask, "
                    "splice, extract, generate and eval need --line to choose one.",
                )


@rule(
    "ambiguous-function",
    "warning",
    "the goal function is defined more than once in one file",
)
def _ambiguous_listed(ctx: TaskContext) -> Iterator[Finding]:
    # Reported by function-not-found, which already has the definitions at hand.
    return iter(())


@rule("not-masked", "error", "the goal function in the repository is identical to the golden one")
def check_masked(ctx: TaskContext) -> Iterator[Finding]:
    for item in goal_files(ctx):
        if item.golden is None or item.goal is None:
            continue
        if item.golden.functions is None or item.goal.functions is None:
            continue
        impl = item.impl
        golden = matching(item.golden.functions, impl.goal_function, impl.class_name)
        goal = matching(item.goal.functions, impl.goal_function, impl.class_name)
        if not golden or not goal:
            continue
        if _function_key(item.golden, golden[-1]) == _function_key(item.goal, goal[-1]):
            yield ctx.finding(
                "not-masked",
                f"goal function '{impl.qualified_name}' in the repository is identical to the "
                "golden one, so a system can copy the answer",
                file=ctx.rel(item.goal.path),
                where=f"lines {goal[-1].start_line}-{goal[-1].end_line}",
                hint="Mask it: keep the signature and docstring, replace the body.",
            )


def _function_key(source: SourceFile, info: FunctionInfo) -> str:
    """The function's code without comments and layout (its AST), or its stripped text."""
    segment = "\n".join(source.lines[info.start_line - 1 : info.end_line])
    try:
        return ast.dump(parse_python(textwrap.dedent(segment)))
    except (SyntaxError, ValueError, RecursionError):
        return "\n".join(line.strip() for line in segment.splitlines() if line.strip())


@rule(
    "outside-diff",
    "error",
    "the goal file differs from the golden file outside the goal function(s)",
)
def check_outside_diff(ctx: TaskContext) -> Iterator[Finding]:
    if ctx.task is None:
        return
    pairs: dict[tuple[Path, Path], tuple[SourceFile, SourceFile]] = {}
    goals_of: dict[Path, set[tuple[str, str]]] = {}
    for item in goal_files(ctx):
        if item.golden is None or item.goal is None:
            continue
        pairs.setdefault((item.goal.path, item.golden.path), (item.goal, item.golden))
        goals_of.setdefault(item.goal.path, set()).add(
            (item.impl.goal_function, item.impl.class_name)
        )
    for (goal_path, _), (goal, golden) in pairs.items():
        if goal.functions is None or golden.functions is None:
            continue
        names = sorted(goals_of[goal_path])
        goal_kept = _kept_lines(goal, names)
        golden_kept = _kept_lines(golden, names)
        if goal_kept is None or golden_kept is None:
            continue  # a goal function is missing: function-not-found says so
        finding = _diff_finding(ctx, goal, golden, goal_kept, golden_kept)
        if finding is not None:
            yield finding


def _kept_lines(source: SourceFile, names: list[tuple[str, str]]) -> list[tuple[int, str]] | None:
    """(line number, stripped text) of the lines outside the goal functions.

    Blank lines are dropped; each goal function becomes one marker line so that moving
    it is still seen. None when a goal function is not in the file.
    """
    assert source.functions is not None
    regions: list[tuple[int, int, str]] = []
    for name, class_name in names:
        found = matching(source.functions, name, class_name)
        if not found:
            return None
        for info in found:
            end = _extend_over_trailing_comments(source.lines, info)
            regions.append((info.start_line, end, info.qualname))
    regions.sort()
    kept: list[tuple[int, str]] = []
    line_no = 1
    lines = source.lines
    for start, end, qualname in regions:
        if start < line_no:
            continue  # nested inside a region already masked
        kept.extend(_text_lines(lines, line_no, start - 1))
        kept.append((start, f"\x00goal function {qualname}"))
        line_no = end + 1
    kept.extend(_text_lines(lines, line_no, len(lines)))
    return kept


def _text_lines(lines: list[str], first: int, last: int) -> list[tuple[int, str]]:
    return [(n, lines[n - 1].strip()) for n in range(first, last + 1) if lines[n - 1].strip()]


def _extend_over_trailing_comments(lines: list[str], info: FunctionInfo) -> int:
    """Comments indented under the ``def`` right after its last statement belong to it."""
    def_text = lines[info.def_line - 1]
    indent = len(def_text) - len(def_text.lstrip())
    end = info.end_line
    for number in range(info.end_line + 1, len(lines) + 1):
        text = lines[number - 1]
        stripped = text.lstrip()
        if not stripped:
            continue
        if stripped.startswith("#") and len(text) - len(stripped) > indent:
            end = number
            continue
        break
    return end


def _diff_finding(
    ctx: TaskContext,
    goal: SourceFile,
    golden: SourceFile,
    goal_kept: list[tuple[int, str]],
    golden_kept: list[tuple[int, str]],
) -> Finding | None:
    goal_texts = [text for _, text in goal_kept]
    golden_texts = [text for _, text in golden_kept]
    if goal_texts == golden_texts:
        return None
    # autojunk keeps big, very different files fast (popular lines are matched coarsely).
    matcher = difflib.SequenceMatcher(None, golden_texts, goal_texts)
    code_hunks: list[str] = []
    comment_hunks: list[str] = []
    first_where = ""
    first_comment_where = ""
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        changed = golden_texts[i1:i2] + goal_texts[j1:j2]
        is_comment = all(text.startswith("#") for text in changed)
        if j2 > j1:
            where = _span("line", goal_kept[j1][0], goal_kept[j2 - 1][0])
            text = f"goal {where}"
        else:
            after = goal_kept[j1 - 1][0] if j1 > 0 else 0
            where = f"line {after}" if after else "line 1"
            text = f"missing after goal line {after}" if after else "missing at the start"
        if i2 > i1:
            text += f" (golden {_span('line', golden_kept[i1][0], golden_kept[i2 - 1][0])})"
        if is_comment:
            comment_hunks.append(text)
            first_comment_where = first_comment_where or where
        else:
            code_hunks.append(text)
            first_where = first_where or where
    hunks, severity, kind = (
        (code_hunks, "error", "code") if code_hunks else (comment_hunks, "warning", "comments")
    )
    if not hunks:
        return None
    shown = "; ".join(hunks[:_MAX_HUNKS]) + (
        f"; and {len(hunks) - _MAX_HUNKS} more" if len(hunks) > _MAX_HUNKS else ""
    )
    return ctx.finding(
        "outside-diff",
        f"the goal file differs from {ctx.rel(golden.path)} in {kind} outside the goal "
        f"function(s): {shown}",
        file=ctx.rel(goal.path),
        where=first_where or first_comment_where,
        severity="error" if severity == "error" else "warning",
        hint="Make the goal file the golden file with only the goal function(s) masked.",
    )


def _span(word: str, first: int, last: int) -> str:
    return f"{word} {first}" if first == last else f"{word}s {first}-{last}"
