"""Index the functions and methods of a Python source file.

`list_functions` is the one place that says where a function is; the validator, the
masking engine, the new-task picker and `lmr-author functions` all use it.
"""

from __future__ import annotations

import ast
from dataclasses import asdict, dataclass, field
from typing import Any


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

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["decorators"] = list(self.decorators)
        return data


def list_functions(source: str | bytes) -> list[FunctionInfo]:
    """Every function and method in ``source``, in source order.

    Raises ``SyntaxError`` when the source does not parse.
    """
    tree = ast.parse(source)
    found: list[FunctionInfo] = []
    _walk(tree, prefix="", class_name="", out=found)
    found.sort(key=lambda info: (info.start_line, info.def_line))
    return found


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


def _walk(node: ast.AST, *, prefix: str, class_name: str, out: list[FunctionInfo]) -> None:
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
            qualname = f"{prefix}{child.name}"
            out.append(_info(child, qualname, class_name))
            _walk(child, prefix=qualname + ".", class_name="", out=out)
        elif isinstance(child, ast.ClassDef):
            qualname = f"{prefix}{child.name}"
            _walk(child, prefix=qualname + ".", class_name=qualname, out=out)
        elif isinstance(child, ast.stmt):
            # if/try/with/for blocks at the same level keep the same scope.
            _walk(child, prefix=prefix, class_name=class_name, out=out)


def _info(
    node: ast.FunctionDef | ast.AsyncFunctionDef, qualname: str, class_name: str
) -> FunctionInfo:
    start = min([d.lineno for d in node.decorator_list] + [node.lineno])
    docstring = ast.get_docstring(node, clean=True) or ""
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
        decorators=tuple(ast.unparse(d) for d in node.decorator_list),
        docstring=docstring.strip().splitlines()[0] if docstring.strip() else "",
        body_lines=end - body_start + 1,
    )
