"""The goal resolver: pick the one definition a task means, or say clearly why not.

Every command that acts on "the goal function" (mask, splice, extract, collect, eval,
generate) goes through `locate_function`, so that a nested homonym is passed over the
same way everywhere, and a missing name, a redefinition at the same level, an overload
or a property setter is reported the same way, with the candidates and ``--line N``.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence

from lmr_author.cst.index import FunctionInfo, _class_matches
from lmr_author.util.errors import UserError


class FunctionNotFoundError(UserError):
    """The goal function is not defined where the task says it is."""


class AmbiguousFunctionError(UserError):
    """Several definitions match; the user must pick one with ``--line N``."""

    def __init__(
        self,
        message: str,
        *,
        candidates: Sequence[FunctionInfo],
        file: str | None = None,
        classes: bool = False,
    ) -> None:
        self.candidates = list(candidates)
        hint = "Pass --line N (any line of the wanted definition) to pick one"
        if classes:
            # Two nested classes of the same name: their qualified paths tell them apart.
            paths = " or ".join(sorted({info.class_name for info in candidates}))
            hint += f", or name the class by its path ({paths})"
        super().__init__(message, file=file, hint=hint + ".")


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


def rank(info: FunctionInfo) -> tuple[int, bool]:
    """How far ``info`` sits from its scope's own body: nesting depth, then conditional.

    Lower wins: a module-level (or class-level) definition beats one nested inside a
    function or another class, and a definition directly in the body beats one inside
    an ``if``/``try``/``with`` block of the same scope.
    """
    return info.qualname.count("."), info.conditional


def best_ranked(found: Sequence[FunctionInfo]) -> list[FunctionInfo]:
    """The definitions of ``found`` that the goal resolver would choose among."""
    if not found:
        return []
    best = min(rank(info) for info in found)
    return [info for info in found if rank(info) == best]


def goal_candidates(
    infos: Sequence[FunctionInfo], function: str, class_name: str = ""
) -> list[FunctionInfo]:
    """What `locate_function` chooses among without ``line``: one item when it resolves,
    several for a real ambiguity, none when the function is not defined."""
    return best_ranked(matching_functions(infos, function, class_name))


def locate_function(
    infos: Sequence[FunctionInfo],
    function: str,
    class_name: str = "",
    *,
    line: int | None = None,
    file: str | None = None,
) -> FunctionInfo:
    """The goal resolver: the one definition of ``function`` in ``class_name`` that a task
    means ("" = top level), for index, mask, splice and extract alike.

    Published tasks name a function by its bare name; the definition meant is the one
    their masking scripts saw: the module-level (or class-level) one, not a homonym
    nested inside another function or class, and an unconditional one rather than an
    ``if``/``try`` variant of the same scope (see `rank`). Only two candidates of the
    best rank are a real ambiguity; then ``line`` (any line of the wanted definition,
    the innermost wins) chooses. ``class_name`` may be the class's qualified path
    ("Outer.Inner") or its own name ("Inner"). Raises `FunctionNotFoundError` or
    `AmbiguousFunctionError`.
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
        return max(at_line, key=lambda info: info.start_line)
    if not found:
        raise not_found_error(infos, function, class_name, file)
    chosen = best_ranked(found)
    if len(chosen) > 1:
        listing = ", ".join(_label(info) for info in chosen)
        raise AmbiguousFunctionError(
            f"the {what} is defined {len(chosen)} times at the same level ({listing}).",
            candidates=chosen,
            file=file,
            classes=len({info.class_name for info in chosen}) > 1,
        )
    return chosen[0]


def not_found_error(
    infos: Sequence[FunctionInfo], function: str, class_name: str, file: str | None = None
) -> FunctionNotFoundError:
    """Why ``function`` is not found, with the closest names or what the task should say."""
    what = describe(function, class_name)
    if class_name and class_name.rpartition(".")[2] == function:
        # Published tasks (10-TimeDistill, 21-TimeMixer) name a class as both the goal
        # function and its class. Which methods they meant is not written anywhere, so
        # the task must say it rather than the engine guessing.
        methods = sorted(
            {info.name for info in infos if _class_matches(info.class_name, class_name)}
        )
        listing = f" (its methods: {', '.join(methods)})" if methods else ""
        return FunctionNotFoundError(
            f"the task names class `{class_name}` as its own goal function; a goal is one "
            f"function or method, and the class defines no method `{function}`{listing}.",
            file=file,
            hint=f'Set "goal_function" to the method meant (e.g. "forward") and keep '
            f'"class_name": "{class_name}"; one implementation per method.',
        )
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
    return FunctionNotFoundError(f"the file defines no {what}.", file=file, hint=hint)


def _label(info: FunctionInfo) -> str:
    extra = ""
    if info.decorators:
        extra = " @" + ", @".join(info.decorators)
    return f"`{info.qualname}` at line {info.def_line}{extra}"


def _lines_hint(found: Sequence[FunctionInfo]) -> str | None:
    if not found:
        return None
    return (
        "Definitions: "
        + ", ".join(f"lines {info.start_line}-{info.end_line}" for info in found)
        + "."
    )
