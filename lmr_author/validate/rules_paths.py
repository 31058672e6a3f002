"""Rules about the paths info.json names: they must exist and stay inside the task folder.

Docker builds the test image with the task folder as its build context, so a path that
leaves it (absolute, ``..`` or a symbolic link pointing outside) cannot work there even
when it happens to work on the author's machine.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from lmr_author.domain.task import (
    DOCKERFILE,
    INFO_FILE,
    PAPER_JSON,
    PAPER_PDF,
    RETRIEVAL_ALIAS,
    RETRIEVAL_KEY,
)
from lmr_author.validate.context import TaskContext
from lmr_author.validate.findings import Finding, Severity
from lmr_author.validate.rules import rule
from lmr_author.validate.rules_info import implementation_dicts


@dataclass(frozen=True)
class PathField:
    """A path value of info.json, the folder it is relative to, and its JSON path."""

    where: str
    key: str
    value: str
    base: Path
    severity: Severity = "error"


def repo_folder(ctx: TaskContext) -> str | None:
    value = (ctx.raw or {}).get("repo_folder_name")
    return value if isinstance(value, str) and value else None


def path_fields(ctx: TaskContext) -> Iterator[PathField]:
    """Every string path in info.json except repo_folder_name itself."""
    folder = repo_folder(ctx)
    repo = ctx.root / folder if folder else ctx.root
    for position, entry in implementation_dicts(ctx):
        prefix = f"$.implementations[{position}]"
        for key, base in (("goal_file", repo), ("golden_file", ctx.root), ("unit_test_file", repo)):
            value = entry.get(key)
            if isinstance(value, str) and value:
                yield PathField(f"{prefix}.{key}", key, value, base)
        for key in (RETRIEVAL_KEY, RETRIEVAL_ALIAS):
            items = entry.get(key)
            if isinstance(items, list):
                for number, item in enumerate(items):
                    if isinstance(item, str) and item:
                        where = f"{prefix}.{key}[{number}]"
                        yield PathField(where, "retrieval path", item, repo, "warning")


@rule("path-escape", "error", "a path is absolute, uses '..' or a link leaves the task folder")
def check_path_escape(ctx: TaskContext) -> Iterator[Finding]:
    hint = "Give a path inside the task folder, relative to the repository folder."
    folder = repo_folder(ctx)
    if folder is not None:
        reason = ctx.escape_reason(ctx.root, folder)
        if reason is not None:
            yield ctx.finding(
                "path-escape",
                f"repo_folder_name '{folder}' {reason}",
                file=INFO_FILE,
                where="$.repo_folder_name",
                hint="Name a folder directly inside the task folder.",
            )
            return
    for item in path_fields(ctx):
        reason = ctx.escape_reason(item.base, item.value)
        if reason is not None:
            yield ctx.finding(
                "path-escape",
                f"{item.key} '{item.value}' {reason}",
                file=INFO_FILE,
                where=item.where,
                hint=hint,
            )
    for entry in ctx.tree():
        if entry.is_symlink and not ctx.inside(entry.path):
            try:
                target = os.readlink(entry.path)
            except OSError:
                target = "?"
            yield ctx.finding(
                "path-escape",
                f"symbolic link to '{target}' leaves the task folder",
                file=ctx.rel(entry.path),
                hint="Docker cannot copy it into the image: replace the link with the file.",
            )


@rule("missing-path", "error", "a path of info.json or the Dockerfile does not exist")
def check_missing_path(ctx: TaskContext) -> Iterator[Finding]:
    if not _is_file(ctx.root / DOCKERFILE):
        yield ctx.finding(
            "missing-path",
            "the task has no Dockerfile",
            file=DOCKERFILE,
            hint="Write one (templates/Dockerfile is a start); its build context is the task.",
        )
    folder = repo_folder(ctx)
    if folder is None or ctx.safe_path(ctx.root, folder) is None:
        return  # the schema or path-escape rule reports it
    repo = ctx.root / folder
    if not _is_dir(repo):
        yield ctx.finding(
            "missing-path",
            f"the repository folder '{folder}' does not exist",
            file=INFO_FILE,
            where="$.repo_folder_name",
            hint="Copy the (masked) repository there or fix repo_folder_name.",
        )
        repo_ok = False
    else:
        repo_ok = True
    seen: set[Path] = set()
    for item in path_fields(ctx):
        if item.base != ctx.root and not repo_ok:
            continue
        path = ctx.safe_path(item.base, item.value)
        if path is None or path in seen:
            continue
        seen.add(path)
        if _is_file(path) or (item.key == "retrieval path" and _is_dir(path)):
            continue  # a retrieval path may name a whole folder
        what = "is not a file" if _exists(path) else "does not exist"
        yield ctx.finding(
            "missing-path",
            f"{item.key} '{item.value}' {what} ({ctx.rel(path)})",
            file=INFO_FILE,
            where=item.where,
            severity=item.severity,
            hint="Create the file or fix the path"
            + (
                " (relative to the task folder)."
                if item.base == ctx.root
                else " (relative to the repository folder)."
            ),
        )
    for entry in ctx.tree():
        if entry.is_symlink and ctx.inside(entry.path) and not _exists(entry.path):
            yield ctx.finding(
                "missing-path",
                "symbolic link points to nothing",
                file=ctx.rel(entry.path),
                severity="warning",
                hint="Replace the link with the file it should point to, or delete it.",
            )


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except (OSError, ValueError):
        return False


def _is_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except (OSError, ValueError):
        return False


def _exists(path: Path) -> bool:
    try:
        return path.exists()
    except (OSError, ValueError):
        return False


#: How a task gets its paper after it was saved without one.
PAPER_HINT = (
    "Add it with 'lmr-author paper TASK_FOLDER PAPER' (a PDF, LaTeX source, Markdown or "
    "paper.json): systems read it."
)


@rule("paper-missing", "warning", "the task has no paper yet (paper.pdf and paper.json)")
def check_paper(ctx: TaskContext) -> Iterator[Finding]:
    folder = repo_folder(ctx)
    if folder is None or ctx.safe_path(ctx.root, folder) is None:
        return
    repo = ctx.root / folder
    if not _is_dir(repo):
        return  # missing-path reports the folder
    # One of the two is a paper (published tasks have either or both).
    if not _is_file(repo / PAPER_PDF) and not _is_file(repo / PAPER_JSON):
        yield ctx.finding(
            "paper-missing",
            "the task has no paper yet (it was left for later)",
            file=f"{folder}/{PAPER_PDF}",
            hint=PAPER_HINT,
        )
