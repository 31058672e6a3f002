"""Mask goal functions: replace a function's body with a stub, keep every other byte.

The function is located with the ``ast`` index, its lines are rewritten with libcst
(`MaskBody`), and the new lines replace the old ones; all other lines of the file are
copied untouched. That is what makes the masked file byte-identical to the golden file
outside the goal function, unlike the published tasks' ``ast.unparse`` scripts.

Two stub styles:

- ``lmr`` mirrors the published LMR-Bench tasks: docstring, a TODO comment, and the
  function's final ``return`` line when it returns names (else ``pass``);
- ``todo``: docstring, a TODO comment and ``raise NotImplementedError``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import overload

import libcst as cst
import libcst.matchers as m

from lmr_author.cst.index import FunctionInfo, _class_matches
from lmr_author.cst.locate import FunctionNotFoundError, locate_function, split_qualified
from lmr_author.cst.snippet import parse_function_nodes, rewrite_region
from lmr_author.cst.text import SourceText
from lmr_author.util.errors import UserError

#: The stub styles a goal function can be masked with (the draft's ``mask_style``).
MASK_STYLES = ("lmr", "todo")
TODO_COMMENT = "# TODO: Implement this function"

_DOCSTRING = m.SimpleStatementLine(body=[m.Expr(value=m.SimpleString() | m.ConcatenatedString())])
_RETURNS_NAMES = m.Return(
    value=m.Name() | m.Tuple(elements=[m.AtLeastN(m.Element(value=m.Name()), n=1)])
)


class MaskBody(cst.CSTTransformer):
    """Replace the body of the outermost function definition with a stub.

    Decorators, signature, the comment on the ``def`` line and the docstring stay; the
    rest of the body becomes a TODO comment plus ``raise NotImplementedError`` (style
    ``todo``) or the final ``return NAMES`` line / ``pass`` (style ``lmr``).
    """

    def __init__(self, style: str, todo_comment: str = TODO_COMMENT) -> None:
        super().__init__()
        self.style = style
        self.todo_comment = todo_comment
        self.masked = False

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False  # nested functions vanish with the body; never mask them instead

    def leave_FunctionDef(
        self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef
    ) -> cst.FunctionDef:
        if self.masked:
            return updated_node
        self.masked = True
        return updated_node.with_changes(body=self._stub(updated_node.body))

    def _stub(self, body: cst.BaseSuite) -> cst.IndentedBlock:
        statements: list[cst.BaseStatement]
        if isinstance(body, cst.IndentedBlock):
            statements = list(body.body)
            block = body
        else:
            assert isinstance(body, cst.SimpleStatementSuite)
            statements = [
                cst.SimpleStatementLine(
                    body=[small.with_changes(semicolon=cst.MaybeSentinel.DEFAULT)]
                )
                for small in body.body
            ]
            trailing = body.trailing_whitespace
            block = cst.IndentedBlock(
                body=[],
                header=cst.TrailingWhitespace(
                    whitespace=trailing.whitespace,
                    comment=trailing.comment,
                    newline=trailing.newline,
                ),
            )
        kept: list[cst.BaseStatement] = []
        if statements and m.matches(statements[0], _DOCSTRING):
            kept.append(statements[0])
        last = statements[-1] if statements else None
        tail: cst.BaseStatement
        if (
            self.style == "lmr"
            and last is not None
            and not (kept and last is kept[0])
            and m.matches(last, m.SimpleStatementLine(body=[_RETURNS_NAMES]))
        ):
            tail = last
        elif self.style == "lmr":
            tail = cst.SimpleStatementLine(body=[cst.Pass()])
        else:
            tail = cst.SimpleStatementLine(body=[cst.Raise(exc=cst.Name("NotImplementedError"))])
        todo = cst.EmptyLine(comment=cst.Comment(self.todo_comment))
        kept.append(tail.with_changes(leading_lines=[todo]))
        return block.with_changes(body=kept)


@overload
def mask_function(
    source: str,
    function: str,
    class_name: str = "",
    *,
    style: str = "lmr",
    line: int | None = None,
    filename: str | None = None,
) -> str: ...
@overload
def mask_function(
    source: bytes,
    function: str,
    class_name: str = "",
    *,
    style: str = "lmr",
    line: int | None = None,
    filename: str | None = None,
) -> bytes: ...
def mask_function(
    source: str | bytes,
    function: str,
    class_name: str = "",
    *,
    style: str = "lmr",
    line: int | None = None,
    filename: str | None = None,
) -> str | bytes:
    """Mask ``function`` (a method when ``class_name`` is given; every method when
    ``function`` names a class). Returns the masked source, in the type of ``source``.
    """
    return _mask(source, [(function, class_name, line)], style=style, filename=filename)


@overload
def mask_functions(
    source: str,
    targets: Iterable[str | tuple[str, str]],
    *,
    style: str = "lmr",
    filename: str | None = None,
) -> str: ...
@overload
def mask_functions(
    source: bytes,
    targets: Iterable[str | tuple[str, str]],
    *,
    style: str = "lmr",
    filename: str | None = None,
) -> bytes: ...
def mask_functions(
    source: str | bytes,
    targets: Iterable[str | tuple[str, str]],
    *,
    style: str = "lmr",
    filename: str | None = None,
) -> str | bytes:
    """Mask several functions in one pass.

    Each target is ``"name"``, ``"Class.method"``, a class name (all its methods) or a
    ``(function, class_name)`` pair.
    """
    resolved: list[tuple[str, str, int | None]] = []
    for target in targets:
        if isinstance(target, tuple):
            resolved.append((target[0], target[1], None))
        else:
            resolved.append((target, "", None))
    return _mask(source, resolved, style=style, filename=filename)


@overload
def mask_class(
    source: str, class_name: str, *, style: str = "lmr", filename: str | None = None
) -> str: ...
@overload
def mask_class(
    source: bytes, class_name: str, *, style: str = "lmr", filename: str | None = None
) -> bytes: ...
def mask_class(
    source: str | bytes, class_name: str, *, style: str = "lmr", filename: str | None = None
) -> str | bytes:
    """Mask every method defined directly in ``class_name``."""
    return _mask(source, [(class_name, "", None)], style=style, filename=filename)


def resolve_targets(
    infos: Sequence[FunctionInfo],
    targets: Sequence[tuple[str, str, int | None]],
    *,
    filename: str | None = None,
) -> list[FunctionInfo]:
    """The definitions to mask, outermost only, in source order."""
    chosen: dict[int, FunctionInfo] = {}
    for function, class_name, line in targets:
        name, owner = split_qualified(function, class_name)
        try:
            found = [locate_function(infos, name, owner, line=line, file=filename)]
        except FunctionNotFoundError:
            methods = [info for info in infos if _class_matches(info.class_name, function)]
            if class_name or line is not None or not methods:
                raise
            found = methods
        for info in found:
            chosen[info.start_line] = info
    ordered = sorted(chosen.values(), key=lambda info: info.start_line)
    outermost: list[FunctionInfo] = []
    for info in ordered:
        if outermost and info.end_line <= outermost[-1].end_line:
            continue  # nested in a function that is masked anyway
        outermost.append(info)
    return outermost


def _mask(
    source: str | bytes,
    targets: Sequence[tuple[str, str, int | None]],
    *,
    style: str,
    filename: str | None,
) -> str | bytes:
    if style not in MASK_STYLES:
        raise UserError(
            f"unknown mask style {style!r}.", hint=f"Use one of: {', '.join(MASK_STYLES)}."
        )
    text = SourceText.from_source(source, filename=filename)
    pairs = parse_function_nodes(text, filename=filename)
    nodes = {info: node for info, node in pairs}
    infos = [info for info, _ in pairs]
    for info in reversed(resolve_targets(infos, targets, filename=filename)):
        rewrite_region(text, info, MaskBody(style), node=nodes[info], filename=filename)
    return text.to_source(filename=filename)
