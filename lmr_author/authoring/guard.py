"""Guard a module's notebook-style top-level code with ``if __name__ == "__main__":``.

Research code often runs its analysis at import time: it reads data files, loops over
models, prints results. Importing such a module to record (or test) one of its
functions then runs all of it, and dies on data the task does not ship (a Git LFS
pointer that was never pulled). Guarding moves that code under
``if __name__ == "__main__":`` in place, in the task's copy of the repository only
(the annotator's working tree is never changed), so importing the module defines its
functions and constants and nothing else.

What stays at the top level: imports, definitions, docstrings, assignments without
calls (constants), assignments whose names the module's functions read, set-up calls
(``sys.path``, ``warnings``, ``logging``, seeding), and compound statements made only
of those. Everything else is guarded, and so is any statement that reads a name only
guarded code binds.
"""

from __future__ import annotations

import ast
import symtable
from collections.abc import Iterable
from pathlib import Path

from lmr_author.util.errors import UserError
from lmr_author.util.python_parse import parse_python

#: Calls at the top level that set the module up rather than run an analysis.
_SETUP_CALLS = (
    "sys.path.",
    "warnings.",
    "logging.",
    "logger.",
    "matplotlib.use",
    "mpl.use",
    "plt.switch_backend",
    "plt.rcParams",
    "random.seed",
    "np.random.seed",
    "numpy.random.seed",
    "torch.manual_seed",
    "torch.set_",
    "os.environ",
    "load_dotenv",
    "nltk.download",
    "sns.set",
    "tf.random.set_seed",
    "set_seed",
)
_MAIN_TEST = '__name__ == "__main__"'


def guard_top_level(source: str, *, filename: str = "<module>") -> tuple[str, int]:
    """``source`` with its top-level run code under a main guard; and how many top-level
    statements were guarded (0: nothing to guard, ``source`` is returned unchanged)."""
    import libcst as cst

    try:
        tree = parse_python(source, filename=filename)
        table = symtable.symtable(source, filename, "exec")
    except SyntaxError as error:
        raise UserError(
            f"cannot guard this module: it does not parse ({error.msg})",
            file=filename,
            where=f"line {error.lineno}",
        ) from None
    needed = _globals_read_by_definitions(table)
    guarded = _statements_to_guard(tree.body, needed)
    if not any(guarded):
        return source, 0
    module = cst.parse_module(source)
    if len(module.body) != len(tree.body):  # never expected: both parse the same source
        raise UserError("cannot guard this module (unusual layout)", file=filename)
    body: list[cst.BaseStatement] = []
    run: list[cst.BaseStatement] = []
    run_leading: list[cst.EmptyLine] = []

    def flush() -> None:
        if run:
            block = cst.IndentedBlock(body=list(run))
            test = cst.parse_expression(_MAIN_TEST)
            body.append(cst.If(test=test, body=block, leading_lines=list(run_leading)))
            run.clear()
            run_leading.clear()

    for statement, guard in zip(module.body, guarded, strict=True):
        if not guard:
            flush()
            body.append(statement)
            continue
        if not run:  # the blank lines and comments above the run go above the guard
            run_leading.extend(statement.leading_lines)
            statement = statement.with_changes(leading_lines=[])
        run.append(statement)
    flush()
    return module.with_changes(body=body).code, sum(guarded)


def line_after_guard(source: str, line: int) -> int:
    """Where line ``line`` of ``source`` is once guarded: each guard adds one line (its
    ``if``) just above the first statement it holds."""
    try:
        tree = parse_python(source)
        table = symtable.symtable(source, "<module>", "exec")
    except SyntaxError:
        return line
    guarded = _statements_to_guard(tree.body, _globals_read_by_definitions(table))
    starts = [
        statement.lineno
        for position, statement in enumerate(tree.body)
        if guarded[position] and (position == 0 or not guarded[position - 1])
    ]
    return line + sum(1 for start in starts if start <= line)


def _globals_read_by_definitions(table: symtable.SymbolTable) -> set[str]:
    """Module-level names that some function or class body reads."""
    names: set[str] = set()

    def visit(child: symtable.SymbolTable) -> None:
        for symbol in child.get_symbols():
            if symbol.is_referenced() and (symbol.is_global() or symbol.is_free()):
                names.add(symbol.get_name())
        for grandchild in child.get_children():
            visit(grandchild)

    for child in table.get_children():
        visit(child)
    return names


def _statements_to_guard(body: list[ast.stmt], needed: set[str]) -> list[bool]:
    guard = [not _stays(statement, needed) for statement in body]
    # A statement that reads what only guarded code binds must be guarded too.
    changed = True
    while changed:
        changed = False
        bound_by_guarded = {
            name
            for statement, g in zip(body, guard, strict=True)
            if g
            for name in _bound(statement)
        }
        bound_by_kept = {
            name
            for statement, g in zip(body, guard, strict=True)
            if not g
            for name in _bound(statement)
        }
        for position, statement in enumerate(body):
            if guard[position] or isinstance(statement, ast.FunctionDef | ast.ClassDef):
                continue
            if _read_at_import(statement) & (bound_by_guarded - bound_by_kept):
                guard[position] = changed = True
    return guard


def _stays(statement: ast.stmt, needed: set[str]) -> bool:
    if isinstance(
        statement,
        ast.Import
        | ast.ImportFrom
        | ast.FunctionDef
        | ast.AsyncFunctionDef
        | ast.ClassDef
        | ast.Pass,
    ):
        return True
    if isinstance(statement, ast.Expr):
        if isinstance(statement.value, ast.Constant):
            return True  # a docstring
        return isinstance(statement.value, ast.Call) and _is_setup(statement.value)
    if isinstance(statement, ast.Assign | ast.AnnAssign | ast.AugAssign):
        value = statement.value
        if value is None or not _has_call(value):
            return True
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        if any(_dotted(t).startswith(_SETUP_CALLS) for t in targets):
            return True
        return bool(set(_names(targets)) & needed)
    if isinstance(statement, ast.If):
        if ast.unparse(statement.test).replace("'", '"') == _MAIN_TEST:
            return True
        return all(_stays(s, needed) for s in [*statement.body, *statement.orelse])
    if isinstance(statement, ast.Try):
        parts = [*statement.body, *statement.orelse, *statement.finalbody]
        parts += [s for handler in statement.handlers for s in handler.body]
        return all(_stays(s, needed) for s in parts)
    return False


def _is_setup(call: ast.Call) -> bool:
    return _dotted(call.func).startswith(_SETUP_CALLS)


def _dotted(node: ast.AST) -> str:
    """``np.random.seed`` for that attribute chain ('' for anything else)."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return f"{inner}.{node.attr}" if inner else ""
    if isinstance(node, ast.Subscript):
        return _dotted(node.value)
    if isinstance(node, ast.Call):
        return _dotted(node.func)
    return ""


def _has_call(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Call | ast.Await) for n in ast.walk(node))


def _names(targets: Iterable[ast.AST]) -> list[str]:
    return [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]


def _bound(statement: ast.stmt) -> set[str]:
    """Names a top-level statement binds."""
    names: set[str] = set()
    for node in ast.walk(statement):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.alias):
            names.add((node.asname or node.name).split(".")[0])
    return names


def _read_at_import(statement: ast.stmt) -> set[str]:
    """Names a statement reads when the module is imported (not inside function bodies)."""
    names: set[str] = set()
    stack: list[ast.AST] = [statement]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            names.add(node.id)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            continue
        stack.extend(ast.iter_child_nodes(node))
    return names


def guard_file(path: Path) -> int:
    """Guard the module at ``path`` in place; return how many statements were guarded."""
    from lmr_author.util.atomic import atomic_write_text
    from lmr_author.util.json_input import read_text

    source = read_text(path, what="goal module")
    guarded, count = guard_top_level(source, filename=str(path))
    if count:
        atomic_write_text(path, guarded)
    return count


def apply_guards(guarded_files: Iterable[str], repo_dir: Path) -> None:
    """Guard the draft's ``guarded_files`` in a copy of the repository (``repo_dir``)."""
    for name in guarded_files:
        path = repo_dir / name
        if path.is_file():
            guard_file(path)
