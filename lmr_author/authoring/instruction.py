"""Step 5 of new-task: a first draft of the instruction, for the annotator to edit.

The draft names the function, its file and signature, carries the docstring's summary,
and offers as retrieval context the repository files that define names the goal
function uses (what the paper's appendix D pastes under "Related code for reference").
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

from lmr_author.util.errors import UserError
from lmr_author.util.python_parse import parse_python


@dataclass(frozen=True)
class InstructionDraft:
    text: str
    signature: str
    summary: str
    retrieval_candidates: list[str] = field(default_factory=list)


def draft_instruction(
    repo_dir: Path, goal_file: str, function: str, class_name: str = ""
) -> InstructionDraft:
    """Draft the instruction for ``function`` (in ``class_name``) of ``goal_file``."""
    path = repo_dir / goal_file
    try:
        source = path.read_text(encoding="utf-8")
        tree = parse_python(source)
    except (OSError, UnicodeDecodeError, SyntaxError) as error:
        raise UserError(f"cannot read the goal file: {error}", file=path) from None
    node = _find(tree, function, class_name)
    if node is None:
        where = f"class {class_name}" if class_name else "the top level"
        raise UserError(f"no function '{function}' in {where}", file=path)
    signature = f"{'async ' if isinstance(node, ast.AsyncFunctionDef) else ''}def {node.name}"
    signature += f"({ast.unparse(node.args)})"
    if node.returns is not None:
        signature += f" -> {ast.unparse(node.returns)}"
    docstring = ast.get_docstring(node) or ""
    summary = docstring.strip().split("\n\n")[0].replace("\n", " ").strip()
    owner = f" of the `{class_name}` class" if class_name else ""
    text = (
        f"Implement the `{function}` function{owner} in {goal_file} based on the method "
        f"described in paper.pdf and the code repository."
    )
    if summary:
        text += f" {summary}"
    return InstructionDraft(
        text=text,
        signature=signature,
        summary=summary,
        retrieval_candidates=_retrieval_candidates(repo_dir, goal_file, tree, node),
    )


def _find(
    tree: ast.Module, function: str, class_name: str
) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    scopes: list[ast.AST] = [tree]
    if class_name:
        scopes = [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == class_name]
    for scope in scopes:
        for child in ast.iter_child_nodes(scope):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef) and child.name == function:
                return child
    return None


def _retrieval_candidates(
    repo_dir: Path, goal_file: str, tree: ast.Module, node: ast.AST
) -> list[str]:
    """Repository files that define the imported names the goal function uses."""
    used = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
    used |= {
        n.value.id
        for n in ast.walk(node)
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
    }
    goal_dir = Path(goal_file).parent
    found: list[str] = []
    for stmt in ast.walk(tree):
        modules: list[tuple[str, int]] = []
        if isinstance(stmt, ast.ImportFrom):
            if not any((alias.asname or alias.name) in used for alias in stmt.names):
                continue
            modules.append((stmt.module or "", stmt.level))
            # `from pkg import module` imports a module, not a name defined in pkg.
            modules += [
                (f"{stmt.module}.{alias.name}" if stmt.module else alias.name, stmt.level)
                for alias in stmt.names
                if (alias.asname or alias.name) in used
            ]
        elif isinstance(stmt, ast.Import):
            modules += [
                (alias.name, 0)
                for alias in stmt.names
                if (alias.asname or alias.name.split(".")[0]) in used
            ]
        for module, level in modules:
            relative = _module_file(repo_dir, goal_dir, module, level)
            if relative and relative != goal_file and relative not in found:
                found.append(relative)
    return found


def _module_file(repo_dir: Path, goal_dir: Path, module: str, level: int) -> str | None:
    base = goal_dir
    for _ in range(max(level - 1, 0)):
        base = base.parent
    roots = [base] if level else [Path("."), goal_dir]
    parts = [p for p in module.split(".") if p]
    for root in roots:
        stem = root.joinpath(*parts) if parts else root
        for candidate in (stem.with_suffix(".py"), stem / "__init__.py"):
            if parts and (repo_dir / candidate).is_file():
                return candidate.as_posix()
    return None
