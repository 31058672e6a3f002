"""Write one agent workspace per implementation, as the paper's agent setting gives it.

The settings are the paper's (§5.2), with the names of `lmr_author.generation.prompt`:
``full`` gives the masked repository, ``paper-and-goal-file`` keeps only the goal file of
it, ``paper-only`` removes the repository entirely. Every workspace has ``paper.pdf`` and
``INSTRUCTION.md`` (``templates/agent_instruction.md``). Files are copied through
`lmr_author.util.atomic`, and the manifest records the hash of every file written.
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
from lmr_author.llm.prompt_template import PromptTemplate, load_prompt_template
from lmr_author.util.atomic import atomic_write_bytes, atomic_write_text
from lmr_author.util.errors import UserError
from lmr_author.workspaces.files import IGNORED_DIRS
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
) -> Manifest:
    """Write the workspaces of every implementation of ``tasks`` under ``out``.

    An implementation whose inputs cannot be read (no paper.pdf, ...) is left out and
    reported to ``on_skipped`` as one line; without that callback it is an error.
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
        for impl in task.implementations:
            try:
                entry = _prepare_one(task, impl, setting, out)
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


def _prepare_one(task: Task, impl: Implementation, setting: Setting, out: Path) -> WorkspaceEntry:
    relative = workspace_path(task.name, impl.index)
    root = out / relative
    goal = f"{task.repo_folder_name}/{impl.goal_file}"
    masked = _read(impl.goal_path, "the masked goal file")
    files: dict[str, str] = {}

    def put(name: str, data: bytes, mode: int = 0o644) -> None:
        atomic_write_bytes(root / name, data, mode=mode)
        files[name] = hashlib.sha256(data).hexdigest()

    put(PAPER_PDF, _read(task.paper_pdf_path, "the paper"))
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
