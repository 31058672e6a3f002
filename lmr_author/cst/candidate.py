"""Find the goal function in a model's answer, however the answer is wrapped.

Models answer with a bare ``def``, a ``def`` inside Markdown fences, prose before and
after the code, the method indented as if it were still in its class, the method with
its class around it, or a whole file. `read_candidate` finds the goal function's exact
lines in all of these, plus the helper functions defined next to it.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from lmr_author.cst.text import leading_whitespace, reindent, split_lines
from lmr_author.util.errors import UserError
from lmr_author.util.python_parse import parse_python

_FENCE = re.compile(
    r"^[ \t]*(?P<fence>`{3,}|~{3,})[^\n]*\n(?P<code>.*?)^[ \t]*(?P=fence)[ \t]*$",
    re.MULTILINE | re.DOTALL,
)
_CODE_START = re.compile(r"^[ \t]*(?:@\w|async[ \t]+def[ \t]|def[ \t]|class[ \t])")
_CODE_CONTINUES = re.compile(
    r"^(?:[ \t]|[)\]}]|@\w|async[ \t]|def[ \t]|class[ \t]|import[ \t]|from[ \t]|#)"
)

_FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


class SpliceError(UserError):
    """A candidate implementation that cannot be put into the masked file."""


@dataclass(frozen=True)
class Definition:
    """One ``def`` of the answer: its name, exact lines and the indentation of its ``def``."""

    name: str
    text: str
    indent: str
    method_like: bool = False  # first parameter self/cls, or a static/class method
    decorated: bool = False


@dataclass(frozen=True)
class AnswerCode:
    """The goal function found in an answer, and the helpers defined next to it."""

    goal: Definition
    helpers: tuple[Definition, ...]
    goal_in_class: bool = False  # the answer gave the goal inside a class


@dataclass(frozen=True)
class _Code:
    text: str
    first_line: int  # line of the answer where this code starts (1-based)


def read_candidate(answer: str, function: str, class_name: str = "") -> AnswerCode:
    """The definition of ``function`` in ``answer`` (``class_name``: the innermost class).

    Raises `SpliceError` when no part of the answer parses, or none defines the function.
    """
    answer = answer.lstrip("\ufeff")
    if not answer.strip():
        raise SpliceError("the implementation is empty.")
    errors: list[str] = []
    defined: list[str] = []
    for code in _code_parts(answer):
        parsed = _parse(code.text)
        if isinstance(parsed, SyntaxError):
            line = (parsed.lineno or 1) + code.first_line - 1
            errors.append(f"line {line}: {parsed.msg}")
            continue
        found = _find_goal(parsed, function, class_name)
        if found is None:
            defined.extend(
                node.name for node in ast.walk(parsed) if isinstance(node, _FunctionNode)
            )
            continue
        node, siblings, in_class = found
        lines = split_lines(code.text)
        goal = _definition(node, lines)
        helpers: dict[str, Definition] = {}
        for sibling in siblings:
            if isinstance(sibling, _FunctionNode) and sibling.name != node.name:
                helpers[sibling.name] = _definition(sibling, lines)
        return AnswerCode(goal, tuple(helpers.values()), in_class)
    if defined:
        raise SpliceError(
            f"the implementation does not define `{function}`.",
            hint=f"It defines: {', '.join(dict.fromkeys(defined))}.",
        )
    if errors:
        # The error inside a code block (or code-like run) says more than the one at
        # the first line of prose around it.
        raise SpliceError(
            f"the implementation does not parse ({errors[1] if len(errors) > 1 else errors[0]}).",
            hint="Give the function as Python code, optionally in a Markdown code block.",
        )
    raise SpliceError(
        f"the implementation does not define `{function}`.",
        hint="Give the whole 'def' of the goal function.",
    )


def _code_parts(answer: str) -> list[_Code]:
    """What to try, in order: the whole answer (code whose docstrings hold Markdown
    fences must not be cut up), then its fenced code blocks, else its code-like runs,
    last first: models show the masked stub or a first attempt before the answer."""
    whole = _Code(answer, 1)
    fenced = [
        _Code(match.group("code"), answer.count("\n", 0, match.start("code")) + 1)
        for match in _FENCE.finditer(answer)
    ]
    if fenced:
        return [whole, *reversed(fenced)]
    parts = [whole]
    lines = split_lines(answer)
    index = 0
    while index < len(lines):
        if not _CODE_START.match(lines[index]):
            index += 1
            continue
        end = index + 1
        while end < len(lines) and (not lines[end].strip() or _CODE_CONTINUES.match(lines[end])):
            end += 1
        parts.append(_Code("".join(lines[index:end]), index + 1))
        index = end
    return [whole, *reversed(parts[1:])]


def _parse(code: str) -> ast.Module | SyntaxError:
    """Parse ``code``; code indented as a whole (a method out of its class) is dedented."""
    if "\0" in code:
        return SyntaxError("the code contains a null byte")
    try:
        return parse_python(code)
    except SyntaxError as error:
        first = next((line for line in split_lines(code) if line.strip()), "")
        indent = leading_whitespace(first)
        if not indent:
            return error
        try:
            return parse_python(reindent(code, indent, ""))
        except SyntaxError:
            return error


def _find_goal(
    tree: ast.Module, function: str, class_name: str
) -> tuple[_FunctionNode, list[ast.stmt], bool] | None:
    """The goal ``def`` and the statements next to it, preferring the right class."""

    def named(body: list[ast.stmt]) -> list[_FunctionNode]:
        return [node for node in body if isinstance(node, _FunctionNode) and node.name == function]

    classes = [node for node in tree.body if isinstance(node, ast.ClassDef)]
    if class_name:
        for cls in classes:
            if cls.name == class_name and named(cls.body):
                return named(cls.body)[-1], cls.body, True
    if named(tree.body):
        return named(tree.body)[-1], tree.body, False
    for cls in classes:
        if named(cls.body):
            return named(cls.body)[-1], cls.body, True
    for node in ast.walk(tree):
        if isinstance(node, _FunctionNode) and node.name == function:
            return node, [], False
    return None


def _definition(node: _FunctionNode, lines: list[str]) -> Definition:
    start = min([node.lineno] + [decorator.lineno for decorator in node.decorator_list])
    end = node.end_lineno or node.lineno
    return Definition(
        name=node.name,
        text="".join(lines[start - 1 : end]),
        indent=leading_whitespace(lines[node.lineno - 1]),
        method_like=_method_like(node),
        decorated=bool(node.decorator_list),
    )


def _method_like(node: _FunctionNode) -> bool:
    decorators = {ast.unparse(decorator) for decorator in node.decorator_list}
    if decorators & {"staticmethod", "classmethod"}:
        return True
    params = [*node.args.posonlyargs, *node.args.args]
    return bool(params) and params[0].arg in {"self", "cls"}
