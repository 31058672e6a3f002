"""The mechanical repairs of copies (``validate --fix``): delete, or mask like the goal.

Bytecode, build copies, backups and notebook checkpoints are deleted: nothing needs them.
A near-identical copy (an error) in a Python file is masked with the cst engine
(`lmr_author.cst.mask`), which rewrites the function's own lines and copies every other
byte of the file; a close relative (a warning) is the author's call, since other code may
call it. What is not
mechanical is left with its hint: a copy in a goal file (the golden file would have to
change alike), a function nested in another, a notebook cell, git history, a paper.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from lmr_author.cst.index import FunctionInfo, list_functions
from lmr_author.leaks.copies import Copy
from lmr_author.util.atomic import atomic_write_bytes
from lmr_author.util.errors import UserError


@dataclass(frozen=True)
class Repair:
    """One file changed: ``action`` is "deleted" or "masked".

    ``file`` is relative to the folder the copies were found in (the task folder).
    """

    file: str
    action: str
    functions: tuple[str, ...] = ()

    def describe(self) -> str:
        if self.action == "deleted":
            return f"deleted {self.file} (it held a copy of the goal)"
        names = ", ".join(f"'{name}'" for name in self.functions)
        return f"masked {names} in {self.file} (a copy of the goal)"


def remedy(
    base: Path,
    copies: list[Copy],
    *,
    keep: frozenset[str] | set[str] = frozenset(),
    style: str = "lmr",
) -> list[Repair]:
    """Repair what is mechanical among ``copies`` (paths relative to ``base``); files in
    ``keep`` (the goal files) are never changed. Returns what was done."""
    deletions = sorted({c.file for c in copies if c.level and c.fix == "delete"})
    masks: dict[str, set[tuple[str, int]]] = defaultdict(set)
    for copy in copies:
        # Only near-identical copies: a warning's function is other code (a library's
        # general version, a sibling) that the rest of the repository may call.
        if copy.level == "error" and copy.fix == "mask" and copy.file not in keep and copy.function:
            masks[copy.file].add((copy.function, copy.line))
    done: list[Repair] = []
    for file in deletions:
        path = base / file
        try:
            if path.is_symlink() or not path.is_file():
                continue
            path.unlink()
        except OSError:
            continue
        done.append(Repair(file, "deleted"))
    for file, targets in sorted(masks.items()):
        repaired = _mask(base / file, targets, style)
        if repaired:
            done.append(Repair(file, "masked", tuple(repaired)))
    return done


def mask_at(path: Path, lines: set[int], *, style: str = "lmr") -> list[str]:
    """Mask the functions of ``path`` defined at ``lines`` (def lines) that can be masked
    (`maskable`); the others are left. Returns the qualified names masked."""
    try:
        infos = list_functions(path.read_bytes())
    except (OSError, SyntaxError, ValueError):
        return []
    targets = {(info.qualname, info.def_line) for info in infos if info.def_line in lines}
    return _mask(path, targets, style)


def maskable_at(path: Path, qualname: str, line: int) -> bool:
    """Whether the function ``qualname`` defined at ``line`` of ``path`` can be masked."""
    try:
        infos = list_functions(path.read_bytes())
    except (OSError, SyntaxError, ValueError):
        return False
    return any(
        info.qualname == qualname and info.def_line == line and _maskable(info, infos)
        for info in infos
    )


def _mask(path: Path, targets: set[tuple[str, int]], style: str) -> list[str]:
    """Mask the top-level functions and methods ``targets`` (qualname, def line) of
    ``path``; nested functions are not masked (their enclosing code would still run)."""
    from lmr_author.cst.mask import mask_function

    try:
        if path.is_symlink():
            return []
        data = path.read_bytes()
        infos = list_functions(data)
    except (OSError, SyntaxError, ValueError):
        return []
    chosen: list[FunctionInfo] = []
    for qualname, line in targets:
        for info in infos:
            if info.qualname == qualname and info.def_line == line and _maskable(info, infos):
                chosen.append(info)
    masked = data
    done = []
    for info in sorted(chosen, key=lambda i: i.def_line, reverse=True):
        try:
            masked = mask_function(
                masked, info.name, info.class_name, style=style, line=info.def_line
            )
        except UserError:
            continue
        done.append(info.qualname)
    if not done or masked == data:
        return []
    try:
        atomic_write_bytes(path, masked, mode=path.stat().st_mode & 0o777)
    except OSError:
        return []
    return sorted(done)


def _maskable(info: FunctionInfo, infos: list[FunctionInfo]) -> bool:
    """A module-level function, or a method of a class, not inside any function (the
    code around a nested one would still hold and run it)."""
    parts = info.qualname.split(".")
    enclosing = {".".join(parts[:end]) for end in range(1, len(parts))}
    functions = {other.qualname for other in infos}
    return not info.conditional and not enclosing & functions
