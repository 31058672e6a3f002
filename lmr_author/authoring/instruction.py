"""Step 5 of new-task: a first draft of the instruction, for the annotator to edit.

The draft names the function and its file, then carries the function's docstring laid
out as the docstring lays it out: its paragraphs apart, a paragraph's wrapped lines
joined, and its lists, parameter sections (Google, NumPy or reST style), code and
doctests line by line, as written. It offers as retrieval context the repository files
that define names the goal function uses (what the paper's appendix D pastes under
"Related code for reference"). An ``@overload`` stub is never the function drafted
from: its implementation is.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path

from lmr_author.authoring.suggest.code_facts import is_overload_stub
from lmr_author.util.errors import UserError
from lmr_author.util.python_parse import parse_python


@dataclass(frozen=True)
class InstructionDraft:
    text: str
    signature: str
    summary: str
    retrieval_candidates: list[str] = field(default_factory=list)


def draft_instruction(
    repo_dir: Path, goal_file: str, function: str, class_name: str = "", line: int | None = None
) -> InstructionDraft:
    """Draft the instruction for ``function`` (in ``class_name``) of ``goal_file``; ``line``
    (any line of it) picks one definition when the name has several."""
    path = repo_dir / goal_file
    try:
        source = path.read_text(encoding="utf-8")
        tree = parse_python(source)
    except (OSError, UnicodeDecodeError, SyntaxError) as error:
        raise UserError(f"cannot read the goal file: {error}", file=path) from None
    node = _find(tree, function, class_name, line)
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
    described = docstring_text(docstring)
    if described:
        text += "\n\n" + described
    return InstructionDraft(
        text=text,
        signature=signature,
        summary=summary,
        retrieval_candidates=_retrieval_candidates(repo_dir, goal_file, tree, node),
    )


#: Lines that start a list item, a section of parameters, code or a doctest: kept as
#: lines, never joined with their neighbours.
_STRUCTURED = re.compile(
    r"^\s*(?:[-*+•]\s|\d{1,2}[.)]\s|\(\w{1,3}\)\s|>>>|\.\.\s|:\w[\w ]*:|"
    r"[A-Z][\w ]{0,30}:\s*$|[-=~^]{3,}\s*$|```)"
)


def docstring_text(docstring: str) -> str:
    """The docstring (cleaned, as `ast.get_docstring` gives it) laid out for an
    instruction: paragraphs apart; a paragraph of plain prose on one line (the editor
    wraps it); every other paragraph (a list, an ``Args:`` or NumPy section, indented
    code, a doctest) line by line, as written."""
    paragraphs = re.split(r"\n[ \t]*\n", docstring.strip())
    laid_out = []
    for paragraph in paragraphs:
        lines = [line.rstrip() for line in paragraph.splitlines() if line.strip()]
        if not lines:
            continue
        indented = any(line[:1].isspace() for line in lines)
        if indented or any(_STRUCTURED.match(line) for line in lines):
            laid_out.append("\n".join(lines))
        else:
            laid_out.append(" ".join(line.strip() for line in lines))
    return "\n\n".join(laid_out)


def _find(
    tree: ast.Module, function: str, class_name: str, line: int | None = None
) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    scopes: list[ast.AST] = [tree]
    if class_name:
        innermost = class_name.rsplit(".", 1)[-1]
        scopes = [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == innermost]
    found = [
        child
        for scope in scopes
        for child in ast.iter_child_nodes(scope)
        if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef) and child.name == function
    ]
    if line is not None:
        spanning = [n for n in found if _first_line(n) <= line <= (n.end_lineno or n.lineno)]
        if spanning:
            return spanning[-1]
    implemented = [node for node in found if not is_overload_stub(node)]
    chosen = implemented or found
    return chosen[0] if chosen else None


def _first_line(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    return min([node.lineno] + [d.lineno for d in node.decorator_list])


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
