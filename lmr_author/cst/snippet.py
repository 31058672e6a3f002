"""Run a libcst transform on one function's lines only.

Parsing a whole 5,000-line file with libcst for every mask would be slow, and the rest
of the file must not change anyway. So the function's lines are cut out, wrapped in an
``if True:`` header when they are indented (libcst needs a complete module), transformed,
and the header is cut off again. The caller puts the result back in place of the lines.
"""

from __future__ import annotations

import ast

import libcst as cst

from lmr_author.cst.index import FunctionInfo, FunctionNode, list_function_nodes
from lmr_author.cst.text import SourceText, leading_whitespace, strip_terminator
from lmr_author.util.errors import UserError

_HEADER = "if True:"


def parse_functions(text: SourceText, *, filename: str | None = None) -> list[FunctionInfo]:
    """The index of ``text``; a file that does not parse is a `UserError` with the line."""
    return [info for info, _ in parse_function_nodes(text, filename=filename)]


def parse_function_nodes(
    text: SourceText, *, filename: str | None = None
) -> list[tuple[FunctionInfo, FunctionNode]]:
    """`parse_functions` with the ``ast`` node of each definition."""
    if "\0" in text.text:
        raise UserError("the file contains a null byte; it is not Python source.", file=filename)
    try:
        return list_function_nodes(text.text)
    except SyntaxError as error:
        raise UserError(
            f"the file does not parse: {error.msg}",
            file=filename,
            where=f"line {error.lineno}" if error.lineno else None,
            hint="Fix the syntax error first.",
        ) from None


def transform_function_text(
    region: str, newline: str, transformer: cst.CSTTransformer, *, filename: str | None = None
) -> str:
    """Apply ``transformer`` to the function whose exact lines are ``region``.

    Returns the new lines without a final line terminator.
    """
    # A form feed before the first line resets Python's column count but confuses
    # libcst's tokenizer; it is set aside and put back.
    form_feeds = region[: len(region) - len(region.lstrip("\f"))]
    region = region[len(form_feeds) :]
    indent = leading_whitespace(region)
    snippet = region if strip_terminator(region) != region else region + newline
    header = _HEADER + newline if indent else ""
    try:
        module = cst.parse_module(header + snippet)
    except cst.ParserSyntaxError as error:
        raise UserError(
            f"libcst cannot parse the function's lines: {error.message}",
            file=filename,
            hint="Please report this file; ast accepted it.",
        ) from None
    code = module.visit(transformer).code
    return form_feeds + strip_terminator(code[len(header) :])


def rewrite_region(
    text: SourceText,
    info: FunctionInfo,
    transformer: cst.CSTTransformer,
    *,
    node: FunctionNode | None = None,
    filename: str | None = None,
) -> None:
    """Replace the lines of ``info`` in ``text`` with their transformed version.

    With ``node`` (for masking), libcst only sees what a mask can keep: the header
    (decorators, signature, comments), the docstring and a final ``return``. That keeps
    libcst's parse time independent of the length of the body, and statements libcst
    cannot parse (it lags CPython on a few rare forms) do not matter when they go away.
    """
    region = text.region(info.start_line, info.end_line)
    if node is not None:
        region = _maskable_part(text, info, node) or region
    new = transform_function_text(region, text.newline(), transformer, filename=filename)
    text.replace(info.start_line, info.end_line, new)


def _maskable_part(text: SourceText, info: FunctionInfo, node: FunctionNode) -> str | None:
    """Header, docstring and final ``return`` lines of ``node`` (None: use all its lines).

    Needs every kept statement on lines of its own; one-line bodies and ``a; b``
    bodies get the whole region instead.
    """
    body = node.body
    first = body[0]
    if not _starts_its_line(text, first):
        return None
    parts = [text.region(info.start_line, _first_line(first) - 1)]
    kept_until = _first_line(first) - 1
    if _is_docstring(first):
        parts.append(text.region(_first_line(first), first.end_lineno or first.lineno))
        kept_until = first.end_lineno or first.lineno
    last = body[-1]
    if isinstance(last, ast.Return) and last is not first:
        if not _starts_its_line(text, last) or last.lineno <= kept_until:
            return None
        parts.append(text.region(last.lineno, last.end_lineno or last.lineno))
    elif not _is_docstring(first):
        # Nothing to keep: a placeholder body at the body's indentation.
        line = text.lines[_first_line(first) - 1]
        parts.append(line[: len(line) - len(line.lstrip(" \t\f"))] + "pass" + text.newline())
    return "".join(parts)


def _starts_its_line(text: SourceText, statement: ast.stmt) -> bool:
    line = text.lines[_first_line(statement) - 1].encode("utf-8")
    column = statement.col_offset if _first_line(statement) == statement.lineno else 0
    return not line[:column].strip()


def _is_docstring(statement: ast.stmt) -> bool:
    return (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Constant)
        and isinstance(statement.value.value, str)
    )


def _first_line(statement: ast.stmt) -> int:
    decorators: list[ast.expr] = getattr(statement, "decorator_list", [])
    return min([statement.lineno, *(d.lineno for d in decorators)])
