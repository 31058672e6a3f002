"""Pick exactly one function definition, or say clearly why that is not possible.

Every command that acts on "the goal function" (mask, splice, extract, the validator)
goes through `locate_function`, so that a missing name, a redefinition, an overload or
a property setter is reported the same way everywhere, with the lines and ``--line N``.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence

from lmr_author.cst.index import FunctionInfo, _class_matches
from lmr_author.errors import UserError


class FunctionNotFoundError(UserError):
    """The goal function is not defined where the task says it is."""


class AmbiguousFunctionError(UserError):
    """Several definitions match; the user must pick one with ``--line N``."""

    def __init__(
        self, message: str, *, candidates: Sequence[FunctionInfo], file: str | None = None
    ) -> None:
        self.candidates = list(candidates)
        super().__init__(
            message,
            file=file,
            hint="Pass --line N (any line of the wanted definition) to pick one.",
        )


def describe(function: str, class_name: str) -> str:
    return f"method `{class_name}.{function}`" if class_name else f"function `{function}`"


def split_qualified(function: str, class_name: str) -> tuple[str, str]:
    """Accept ``Class.method`` as shorthand for ``method`` with ``class_name="Class"``."""
    if not class_name and "." in function:
        head, _, tail = function.rpartition(".")
        return tail, head
    return function, class_name


def matching_functions(
    infos: Sequence[FunctionInfo], function: str, class_name: str = ""
) -> list[FunctionInfo]:
    """Definitions named ``function`` in ``class_name`` (or with that dotted qualname)."""
    if not class_name and "." in function:
        # "Class.method" or "outer.inner": match the qualified name or its tail.
        return [
            info
            for info in infos
            if info.qualname == function or info.qualname.endswith("." + function)
        ]
    return [
        info
        for info in infos
        if info.name == function and _class_matches(info.class_name, class_name)
    ]


def locate_function(
    infos: Sequence[FunctionInfo],
    function: str,
    class_name: str = "",
    *,
    line: int | None = None,
    file: str | None = None,
) -> FunctionInfo:
    """The one definition of ``function`` in ``class_name`` ("" = top level).

    ``line`` (any line of the wanted definition) settles ambiguity. Raises
    `FunctionNotFoundError` or `AmbiguousFunctionError`.
    """
    found = matching_functions(infos, function, class_name)
    what = describe(function, class_name)
    if line is not None:
        at_line = [info for info in found if info.start_line <= line <= info.end_line]
        if not at_line:
            raise FunctionNotFoundError(
                f"no definition of the {what} spans line {line}.",
                file=file,
                hint=_lines_hint(found),
            )
        # Innermost first: the definition that starts last still contains the line.
        found = [max(at_line, key=lambda info: info.start_line)]
    if not found:
        names = sorted({info.qualname for info in infos})
        # A bare method name most often means the method of a class: name every
        # qualified definition that ends with it, not only the closest spellings.
        qualified = [name for name in names if name.endswith("." + function)]
        close = qualified or difflib.get_close_matches(
            f"{class_name}.{function}" if class_name else function, names, n=3
        )
        hint = f"Did you mean {', '.join(close)}?" if close else None
        if hint is None and names:
            hint = "Run 'lmr-author functions FILE' to list the functions it defines."
        raise FunctionNotFoundError(f"the file defines no {what}.", file=file, hint=hint)
    if len(found) > 1:
        listing = ", ".join(_label(info) for info in found)
        raise AmbiguousFunctionError(
            f"the {what} is defined {len(found)} times ({listing}).",
            candidates=found,
            file=file,
        )
    return found[0]


def _label(info: FunctionInfo) -> str:
    extra = ""
    if info.decorators:
        extra = " @" + ", @".join(info.decorators)
    return f"line {info.def_line}{extra}"


def _lines_hint(found: Sequence[FunctionInfo]) -> str | None:
    if not found:
        return None
    return (
        "Definitions: "
        + ", ".join(f"lines {info.start_line}-{info.end_line}" for info in found)
        + "."
    )
