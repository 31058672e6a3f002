"""Put an implementation back into a masked file, changing nothing else.

The evaluator splices each prediction of a JSONL submission into the masked goal file;
authors use it to check a golden implementation against a mask. The goal function's
lines are replaced by the candidate's ``def`` (re-indented to the goal's level, line
endings made the file's own); helper functions the candidate defines next to it, and
that the file lacks, are placed just before it. The result must parse, or nothing is
returned.
"""

from __future__ import annotations

import ast
from typing import overload

from lmr_author.cst.candidate import AnswerCode, Definition, SpliceError, read_candidate
from lmr_author.cst.index import FunctionInfo
from lmr_author.cst.locate import locate_function, split_qualified
from lmr_author.cst.snippet import parse_functions
from lmr_author.cst.text import (
    SourceText,
    convert_newlines,
    leading_whitespace,
    line_terminator,
    reindent,
    strip_terminator,
)
from lmr_author.util.python_parse import parse_python

__all__ = ["SpliceError", "splice_function"]


@overload
def splice_function(
    masked_source: str,
    implementation: str | bytes,
    function: str,
    class_name: str = "",
    *,
    line: int | None = None,
    filename: str | None = None,
    helpers: bool = True,
) -> str: ...
@overload
def splice_function(
    masked_source: bytes,
    implementation: str | bytes,
    function: str,
    class_name: str = "",
    *,
    line: int | None = None,
    filename: str | None = None,
    helpers: bool = True,
) -> bytes: ...
def splice_function(
    masked_source: str | bytes,
    implementation: str | bytes,
    function: str,
    class_name: str = "",
    *,
    line: int | None = None,
    filename: str | None = None,
    helpers: bool = True,
) -> str | bytes:
    """``masked_source`` with ``function`` replaced by the one defined in ``implementation``.

    ``implementation`` is a model's answer: a bare ``def``, fenced or in prose, indented
    or not, with or without its class, or a whole file. When the answer's ``def`` has no
    decorators, the masked file's decorators are kept. Raises `SpliceError` when it does
    not parse or does not define the function; the goal function is located like
    `lmr_author.cst.locate.locate_function` does (``line`` settles ambiguity). Without
    ``helpers``, an answer that defines functions the file lacks next to the goal is a
    `SpliceError` (when the goal file is a test file, a new module-level function could be
    a test hook such as ``load_tests`` or ``setUpModule``).
    """
    if isinstance(implementation, bytes):
        implementation = implementation.decode("utf-8", errors="replace")
    text = SourceText.from_source(masked_source, filename=filename)
    infos = parse_functions(text, filename=filename)
    name, owner = split_qualified(function, class_name)
    target = locate_function(infos, name, owner, line=line, file=filename)
    candidate = read_candidate(implementation, target.name, target.class_name.rpartition(".")[2])
    def_line = text.lines[target.def_line - 1]
    indent = leading_whitespace(def_line)
    newline = line_terminator(def_line) or text.newline()
    goal = convert_newlines(reindent(candidate.goal.text, candidate.goal.indent, indent), newline)
    in_scope, at_top = _new_helpers(candidate, infos, target)
    if not helpers and (in_scope or at_top):
        names = ", ".join(helper.name for helper in [*in_scope, *at_top])
        raise SpliceError(
            f"the implementation defines other functions next to `{target.name}` ({names}); "
            "only the goal function is taken into this file.",
            hint="Define the helpers inside the goal function.",
        )
    top = _top_level_start(text, target) if at_top else 0
    scoped = _helper_block(in_scope, indent, newline)
    module_level = _helper_block(at_top, "", newline)
    _check_parses(scoped + goal, indent, newline, filename)
    _check_parses(module_level, "", newline, filename)
    # An answer without decorators keeps the file's (models often leave out @staticmethod).
    first = target.start_line if candidate.goal.decorated else target.def_line
    text.replace(first, target.end_line, strip_terminator(goal))
    if scoped:
        text.insert_before(target.start_line, scoped)
    if module_level:
        text.insert_before(top, module_level)
    return text.to_source(filename=filename)


def _new_helpers(
    candidate: AnswerCode, infos: list[FunctionInfo], target: FunctionInfo
) -> tuple[list[Definition], list[Definition]]:
    """The candidate's helpers the file lacks: ``(next to the goal, at module level)``.

    A method given without its class may come with module-level helper functions; those
    go before the class (so that calling them by name works), unless they look like
    methods themselves (first parameter ``self``/``cls``).
    """
    scope = target.qualname.rpartition(".")[0]
    existing = {info.name for info in infos if info.qualname.rpartition(".")[0] == scope}
    top_level = {info.name for info in infos if "." not in info.qualname}
    in_scope: list[Definition] = []
    at_top: list[Definition] = []
    for helper in candidate.helpers:
        if target.class_name and not candidate.goal_in_class and not helper.method_like:
            if helper.name not in top_level:
                at_top.append(helper)
        elif helper.name not in existing:
            in_scope.append(helper)
    return in_scope, at_top


def _helper_block(helpers: list[Definition], indent: str, newline: str) -> str:
    gap = newline * (1 if indent else 2)
    return "".join(
        _with_terminator(convert_newlines(reindent(h.text, h.indent, indent), newline), newline)
        + gap
        for h in helpers
    )


def _top_level_start(text: SourceText, target: FunctionInfo) -> int:
    """First line (decorators included) of the top-level statement holding ``target``."""
    for node in parse_python(text.text).body:
        if node.lineno <= target.def_line <= (node.end_lineno or node.lineno):
            decorators: list[ast.expr] = getattr(node, "decorator_list", [])
            return min([node.lineno, *(d.lineno for d in decorators)])
    return target.start_line


def _with_terminator(text: str, newline: str) -> str:
    return text if line_terminator(text) else text + newline


def _check_parses(code: str, indent: str, newline: str, filename: str | None) -> None:
    """Refuse new lines that would not parse at their place (indentation ``indent``).

    The rest of the file parsed before and is not touched, so checking the new lines
    alone (under an ``if True:`` header when indented) is enough, and much faster than
    parsing the whole file again.
    """
    if not code:
        return
    header = "if True:" + newline if indent else ""
    try:
        parse_python(header + code)
    except SyntaxError as error:
        line = (error.lineno or 1) - (1 if header else 0)
        raise SpliceError(
            f"the implementation would not parse once spliced: {error.msg} "
            f"(line {line} of the spliced code).",
            file=filename,
            hint="Check the indentation of the implementation.",
        ) from None
