"""Write one agent workspace per implementation, as the paper's agent setting gives it.

The settings are the paper's (§5.2), with the names of `lmr_author.generation.prompt`:
``full`` gives the masked repository, ``paper-and-goal-file`` keeps only the goal file of
it, ``paper-only`` removes the repository entirely. Every workspace has ``paper.pdf`` and
``INSTRUCTION.md`` (``templates/agent_instruction.md``). Files are copied through
`lmr_author.util.atomic`, and the manifest records the hash of every file written.

A workspace that would hold a copy of its goal function (`lmr_author.leaks`, in what the
setting gives: `lmr_author.workspaces.leak_check`) is not written unless
``allow_leaks``; then it is written and each copy reported. The published agent prompt
promises "a research paper named paper.pdf": a task with only paper.json gets a PDF of
its text.
"""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path, PurePosixPath

from lmr_author.domain.task import PAPER_JSON, PAPER_PDF, Implementation, Task
from lmr_author.generation.prompt import Setting
from lmr_author.leaks.copies import Copy
from lmr_author.leaks.task_copies import task_copies
from lmr_author.llm.prompt_template import PromptTemplate, load_prompt_template
from lmr_author.util.atomic import atomic_write_bytes, atomic_write_text
from lmr_author.util.errors import UserError
from lmr_author.workspaces.files import IGNORED_DIRS
from lmr_author.workspaces.leak_check import leak_lines, workspace_copies
from lmr_author.workspaces.manifest import (
    INSTRUCTION_FILE,
    MANIFEST_FILE,
    Manifest,
    WorkspaceEntry,
    save_manifest,
    workspace_path,
)

TEMPLATE_NAME = "agent_instruction.md"


@functools.cache
def _template() -> PromptTemplate:
    """The shipped instruction template, read and checked once per process."""
    from lmr_author.util.resources import resource_path

    return load_prompt_template(
        resource_path("templates", TEMPLATE_NAME),
        what="agent instruction template",
        variables=frozenset(
            {"goal_function", "class_name", "goal_file", "instruction", "setting", "repo_folder"}
        ),
        required="goal_function",
        purpose="names the goal function",
    )


def render_instruction(task: Task, impl: Implementation, setting: Setting) -> str:
    """The ``INSTRUCTION.md`` of one workspace."""
    return _template().render(
        goal_function=impl.goal_function,
        class_name=impl.class_name,
        goal_file=f"{task.repo_folder_name}/{impl.goal_file}",
        instruction=impl.instruction.strip(),
        setting=str(setting),
        repo_folder=task.repo_folder_name,
    )


def prepare_workspaces(
    tasks: Sequence[Task],
    setting: Setting,
    out: Path,
    *,
    benchmark: Path,
    on_workspace: Callable[[WorkspaceEntry], None] | None = None,
    on_skipped: Callable[[str], None] | None = None,
    allow_leaks: bool = False,
    on_note: Callable[[str], None] | None = None,
) -> Manifest:
    """Write the workspaces of every implementation of ``tasks`` under ``out``.

    An implementation whose inputs cannot be read (no paper, ...), or whose workspace
    would hold a copy of its goal function, is left out and reported to ``on_skipped``
    as one line; without that callback it is an error. With ``allow_leaks`` a workspace
    holding a copy is written, and each copy is reported to ``on_note``, as is a paper.pdf
    written from paper.json.
    """
    out = Path(out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise UserError(
            "the output folder exists and is not empty",
            file=out,
            hint="Give a new folder: preparing over agents' work would lose it.",
        )
    entries: list[WorkspaceEntry] = []
    for task in tasks:
        copies = task_copies(task)
        for impl in task.implementations:
            try:
                _check_leaks(task, impl, setting, copies, allow_leaks, on_note)
                entry = _prepare_one(task, impl, setting, out, on_note)
            except UserError as error:
                if on_skipped is None:
                    raise
                shutil.rmtree(out / workspace_path(task.name, impl.index), ignore_errors=True)
                on_skipped(f"{task.name}#{impl.index}: {' '.join(error.render().split())}")
                continue
            entries.append(entry)
            if on_workspace is not None:
                on_workspace(entry)
    manifest = Manifest(str(Path(benchmark).resolve()), str(setting), entries)
    save_manifest(out, manifest)
    return manifest


def _check_leaks(
    task: Task,
    impl: Implementation,
    setting: Setting,
    copies: list[Copy],
    allow_leaks: bool,
    on_note: Callable[[str], None] | None,
) -> None:
    """Refuse a workspace that would hold a copy of its goal (or note it, when allowed)."""
    held = workspace_copies(task, impl, setting, copies)
    if not held:
        return
    if allow_leaks:
        if on_note is not None:
            on_note(
                f"{task.name}#{impl.index}: the workspace holds {len(held)} copy(ies) of the "
                f"goal: {leak_lines(held)}"
            )
        return
    raise UserError(
        f"the workspace would hold {len(held)} copy(ies) of the goal function, which the "
        f"agent could read: {leak_lines(held)}",
        file=task.path,
        hint="Run 'lmr-author validate --fix' on the task (bytecode and build copies go, "
        "copies are masked) and mask the rest, or prepare with --allow-leaks.",
    )


def _prepare_one(
    task: Task,
    impl: Implementation,
    setting: Setting,
    out: Path,
    on_note: Callable[[str], None] | None = None,
) -> WorkspaceEntry:
    relative = workspace_path(task.name, impl.index)
    root = out / relative
    goal = f"{task.repo_folder_name}/{impl.goal_file}"
    masked = _read(impl.goal_path, "the masked goal file")
    files: dict[str, str] = {}

    def put(name: str, data: bytes, mode: int = 0o644) -> None:
        atomic_write_bytes(root / name, data, mode=mode)
        files[name] = hashlib.sha256(data).hexdigest()

    put(PAPER_PDF, _paper_pdf(task, on_note))
    text = render_instruction(task, impl, setting)
    atomic_write_text(root / INSTRUCTION_FILE, text)
    files[INSTRUCTION_FILE] = hashlib.sha256(text.encode("utf-8")).hexdigest()
    if setting is Setting.PAPER_AND_GOAL_FILE:
        put(goal, masked)
    elif setting is Setting.FULL:
        for name, path in _repository_files(task):
            put(
                f"{task.repo_folder_name}/{name}",
                _read(path, "a repository file"),
                path.lstat().st_mode & 0o777,
            )
    return WorkspaceEntry(
        task=task.name,
        implementation=impl.index,
        path=relative,
        goal_file=goal,
        goal_function=impl.goal_function,
        class_name=impl.class_name,
        masked_sha256=hashlib.sha256(masked).hexdigest(),
        files=files,
    )


def _repository_files(task: Task) -> list[tuple[str, Path]]:
    """The masked repository's files, minus the paper (it is at the workspace's top)."""
    found: list[tuple[str, Path]] = []
    for folder, dirs, names in os.walk(task.repo_dir, followlinks=False):
        base = Path(folder)
        dirs[:] = sorted(d for d in dirs if d not in IGNORED_DIRS)
        for name in [*dirs, *names]:
            path = base / name
            if path.is_symlink():
                raise UserError(
                    "the task's repository holds a symlink; workspaces copy only files",
                    file=path,
                    hint="Replace it with the file it points to, then prepare again.",
                )
        for name in sorted(names):
            relative = PurePosixPath((base / name).relative_to(task.repo_dir).as_posix())
            if str(relative) in (PAPER_PDF, PAPER_JSON):
                continue
            found.append((str(relative), base / name))
    return found


def _paper_pdf(task: Task, on_note: Callable[[str], None] | None) -> bytes:
    """The task's paper.pdf; without one, a PDF of paper.json's text (the agent is told it
    has a paper.pdf)."""
    if task.paper_pdf_path.is_file() or not task.paper_json_path.is_file():
        return _read(task.paper_pdf_path, "the paper")
    from lmr_author.authoring.paper_pdf import load_paper_json, paper_pdf_bytes

    pages = load_paper_json(task.paper_json_path)
    sections = [(f"Page {number}", text) for number, text in sorted(pages.items(), key=_page)]
    data, _ = paper_pdf_bytes(task.paper_name or task.name, sections)
    if on_note is not None:
        on_note(f"{task.name}: no paper.pdf; wrote one from paper.json's text")
    return data


def _page(item: tuple[str, str]) -> int:
    return int(item[0]) if item[0].isdigit() else 0


def _read(path: Path, what: str) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise UserError(
            f"{what} does not exist", file=path, hint="Check the task with 'lmr-author validate'."
        ) from None
    except OSError as error:
        raise UserError(f"cannot read {what} ({error.strerror})", file=path) from None


__all__ = ["MANIFEST_FILE", "prepare_workspaces", "render_instruction"]
