"""The driver a goal starts from: the goal's import and a commented example call, marked
as a template to replace. It records nothing as it is (its calls are comments), so a
driver nobody wrote can never become fixtures."""

from __future__ import annotations

import ast
from pathlib import Path

from lmr_author.authoring.spec import GoalSpec
from lmr_author.util.python_parse import parse_python

#: The first line of every template: the app knows an untouched one by its text.
TEMPLATE_MARK = "# TEMPLATE: replace it with calls the paper's experiments make."


def driver_template(repo: Path, goal: GoalSpec) -> str:
    """``from <module> import <name>`` and a commented call of the goal with its
    parameters (its class built first, for a method); the module is named as recording
    imports it (the goal file's path from the repository root)."""
    module = goal.goal_file.removesuffix(".py").replace("/", ".")
    tree = _tree(repo / goal.goal_file)
    function = goal.goal_function
    lines = [
        TEMPLATE_MARK,
        # Two lines: a long name keeps the sentence inside an 80-column editor.
        f"# Each call of {function}",
        "# becomes one fixture of the unit test.",
    ]
    if goal.class_name:
        top = goal.class_name.split(".")[0]
        owner = _class(tree, goal.class_name)
        init = _parameters(_function(owner, "__init__"), method=True)
        call = _parameters(_function(owner, function), method=True)
        lines += [
            f"from {module} import {top}",
            "",
            f"# obj = {goal.class_name}({', '.join(init)})",
            f"# obj.{function}({', '.join(call)})",
        ]
    else:
        call = _parameters(_function(tree, function), method=False)
        lines += [f"from {module} import {function}", "", f"# {function}({', '.join(call)})"]
    return "\n".join(lines) + "\n"


def _tree(path: Path) -> ast.Module | None:
    try:
        return parse_python(path.read_bytes(), filename=str(path))
    except (OSError, SyntaxError, ValueError):
        return None  # the template then names no parameters


def _class(scope: ast.AST | None, dotted: str) -> ast.ClassDef | None:
    for name in dotted.split("."):
        scope = next(
            (
                n
                for n in getattr(scope, "body", [])
                if isinstance(n, ast.ClassDef) and n.name == name
            ),
            None,
        )
    return scope if isinstance(scope, ast.ClassDef) else None


def _function(scope: ast.AST | None, name: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    for node in getattr(scope, "body", []):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name:
            return node
    return None


def _parameters(node: ast.FunctionDef | ast.AsyncFunctionDef | None, *, method: bool) -> list[str]:
    """The parameters a call must give (those without a default)."""
    if node is None:
        return []
    arguments = node.args
    positional = [*arguments.posonlyargs, *arguments.args]
    static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in node.decorator_list)
    if method and not static and positional:
        positional = positional[1:]  # self or cls
    required = positional[: len(positional) - len(arguments.defaults)]
    keyword = [
        a for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True) if d is None
    ]
    return [a.arg for a in required] + [f"{a.arg}=..." for a in keyword]
