"""The exact source of one function, for judge prompts, diffs and round trips.

The text is the function's lines as they are in the file (decorators to last body line,
original indentation and line endings), so that splicing it back into the masked file
gives the golden file byte for byte.
"""

from __future__ import annotations

import ast

from lmr_author.cst.index import FunctionInfo
from lmr_author.cst.locate import locate_function, split_qualified
from lmr_author.cst.snippet import parse_functions
from lmr_author.cst.text import SourceText
from lmr_author.util.python_parse import parse_python


def extract_function(
    source: str | bytes,
    function: str,
    class_name: str = "",
    *,
    line: int | None = None,
    with_class_context: bool = False,
    filename: str | None = None,
) -> str:
    """The source of ``function`` (a method of ``class_name`` when given).

    With ``with_class_context``, a method comes after the header line(s) of its
    enclosing class(es) (``class Name(Base):``), so a judge sees where it lives.
    """
    text = SourceText.from_source(source, filename=filename)
    infos = parse_functions(text, filename=filename)
    name, owner = split_qualified(function, class_name)
    info = locate_function(infos, name, owner, line=line, file=filename)
    body = text.region(info.start_line, info.end_line)
    if not (with_class_context and info.class_name):
        return body
    return "".join(_class_headers(text, info)) + body


def _class_headers(text: SourceText, info: FunctionInfo) -> list[str]:
    """The header lines of the classes around ``info``, outermost first."""
    tree = parse_python(text.text)
    headers: list[str] = []
    body: list[ast.stmt] = tree.body
    while True:
        enclosing = next(
            (
                node
                for node in body
                if isinstance(node, ast.ClassDef)
                and node.lineno <= info.def_line <= (node.end_lineno or node.lineno)
            ),
            None,
        )
        if enclosing is None:
            # Classes inside if/try blocks: look one level into compound statements.
            inner = [
                child
                for node in body
                if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
                and node.lineno <= info.def_line <= (node.end_lineno or node.lineno)
                for child in ast.iter_child_nodes(node)
                if isinstance(child, ast.stmt)
            ]
            if not inner:
                return headers
            body = inner
            continue
        start = min([enclosing.lineno] + [d.lineno for d in enclosing.decorator_list])
        end = max(
            [enclosing.lineno]
            + [
                (b.end_lineno or b.lineno)
                for b in [*enclosing.bases, *(k.value for k in enclosing.keywords)]
            ]
        )
        headers.append(text.region(start, end))
        body = enclosing.body
