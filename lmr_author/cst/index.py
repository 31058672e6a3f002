"""Index the functions and methods of one Python source file.

`list_functions` is the one place that says where a function is; the validator, the
masking engine, the new-task picker and `lmr-author functions` all use it. Indexing a
whole repository (in parallel, with a cache) is `lmr_author.cst.repository`.
"""

from __future__ import annotations

import ast
import gc
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from typing import Any

from lmr_author.util.python_parse import parse_python


@dataclass(frozen=True)
class FunctionInfo:
    """One function or method definition in a source file.

    Line numbers are 1-based and inclusive; ``start_line`` is the first decorator's
    line (or the ``def`` line when there is none).
    """

    qualname: str  # "func", "Class.method", "Outer.Inner.method", "func.inner"
    name: str
    class_name: str  # qualified name of the directly enclosing class, "" if none
    start_line: int
    def_line: int
    end_line: int
    is_async: bool = False
    decorators: tuple[str, ...] = field(default_factory=tuple)
    docstring: str = ""  # first line of the docstring
    body_lines: int = 0
    # Defined inside an if/try/with/for/while/match block of its scope (a fallback or a
    # ``TYPE_CHECKING`` variant), not directly in the module, class or function body.
    conditional: bool = False

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["decorators"] = list(self.decorators)
        return data


def list_functions(source: str | bytes) -> list[FunctionInfo]:
    """Every function and method in ``source``, in source order.

    Raises ``SyntaxError`` when the source does not parse.
    """
    with _gc_paused():
        found = _collect(source)
        infos = [info for info, _ in found]
        del found  # free the tree while the collector is paused (see `_gc_paused`)
    return infos


FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


def list_function_nodes(source: str | bytes) -> list[tuple[FunctionInfo, FunctionNode]]:
    """Like `list_functions`, with each definition's ``ast`` node (for the rewriters)."""
    with _gc_paused():
        return _collect(source)


def _collect(source: str | bytes) -> list[tuple[FunctionInfo, FunctionNode]]:
    found: list[tuple[FunctionInfo, FunctionNode]] = []
    with warnings.catch_warnings():
        # Invalid escape sequences and the like are the file's business, not the index's.
        warnings.simplefilter("ignore", SyntaxWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        tree = parse_python(source)
    _walk(tree.body, prefix="", class_name="", conditional=False, out=found)
    found.sort(key=lambda pair: (pair[0].start_line, pair[0].def_line))
    return found


@contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause the cycle collector while an AST is built and freed.

    The tree has no cycles (reference counting frees it), but the collector's passes
    over hundreds of thousands of new nodes double the time to index a repository. The
    tree must be freed before the collector resumes, or the passes merely come later.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def find_function(source: str | bytes, name: str, class_name: str = "") -> list[FunctionInfo]:
    """The definitions of ``name`` directly inside class ``class_name`` ("" = top level).

    ``class_name`` may be a plain class name (matched against the innermost class) or a
    dotted path. More than one result means the name is ambiguous (redefinition,
    ``if TYPE_CHECKING`` branches, overloads, property setters).
    """
    return [
        info
        for info in list_functions(source)
        if info.name == name and _class_matches(info.class_name, class_name)
    ]


def _class_matches(actual: str, wanted: str) -> bool:
    if not wanted:
        return actual == ""
    return actual == wanted or actual.endswith("." + wanted)


#: Statements whose blocks may hold definitions of the enclosing scope.
_COMPOUND = (
    ast.If,
    ast.For,
    ast.AsyncFor,
    ast.While,
    ast.With,
    ast.AsyncWith,
    ast.Try,
    ast.TryStar,
    ast.Match,
)


def _walk(
    body: list[ast.stmt],
    *,
    prefix: str,
    class_name: str,
    conditional: bool,
    out: list[tuple[FunctionInfo, FunctionNode]],
) -> None:
    # Only block fields are visited: definitions never hide inside expressions, and
    # skipping the expression trees is most of the speed of indexing big repositories.
    for child in body:
        if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
            qualname = f"{prefix}{child.name}"
            out.append((_info(child, qualname, class_name, conditional), child))
            _walk(child.body, prefix=qualname + ".", class_name="", conditional=False, out=out)
        elif isinstance(child, ast.ClassDef):
            qualname = f"{prefix}{child.name}"
            _walk(
                child.body, prefix=qualname + ".", class_name=qualname, conditional=False, out=out
            )
        elif isinstance(child, _COMPOUND):
            # if/try/with/for/match blocks at the same level keep the same scope.
            for block in _blocks(child):
                _walk(block, prefix=prefix, class_name=class_name, conditional=True, out=out)


def _blocks(node: ast.stmt) -> Iterator[list[ast.stmt]]:
    if isinstance(node, ast.Match):
        for case in node.cases:
            yield case.body
        return
    yield node.body  # type: ignore[attr-defined]
    if isinstance(node, ast.Try | ast.TryStar):
        for handler in node.handlers:
            yield handler.body
        yield node.finalbody
    orelse = getattr(node, "orelse", None)
    if orelse:
        yield orelse


def _info(
    node: ast.FunctionDef | ast.AsyncFunctionDef, qualname: str, class_name: str, conditional: bool
) -> FunctionInfo:
    start = min([d.lineno for d in node.decorator_list] + [node.lineno])
    first_body = node.body[0]
    body_start = first_body.lineno
    end = node.end_lineno or node.lineno
    return FunctionInfo(
        qualname=qualname,
        name=node.name,
        class_name=class_name,
        start_line=start,
        def_line=node.lineno,
        end_line=end,
        is_async=isinstance(node, ast.AsyncFunctionDef),
        decorators=tuple(_decorator_text(d) for d in node.decorator_list),
        docstring=_first_docstring_line(first_body),
        body_lines=end - body_start + 1,
        conditional=conditional,
    )


def _decorator_text(node: ast.expr) -> str:
    """``ast.unparse(node)``, without its cost for the common ``@name`` / ``@a.b``."""
    parts: list[str] = []
    current = node
    while isinstance(current, ast.Attribute):
        parts.append(current.attr)
        current = current.value
    if isinstance(current, ast.Name):
        parts.append(current.id)
        return ".".join(reversed(parts))
    return ast.unparse(node)


def _first_docstring_line(statement: ast.stmt) -> str:
    """The first non-blank line of the docstring (what ``inspect.cleandoc`` would show)."""
    if (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Constant)
        and isinstance(statement.value.value, str)
    ):
        text = statement.value.value.expandtabs().strip()
        return text.splitlines()[0].strip() if text else ""
    return ""
