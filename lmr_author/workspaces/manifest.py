"""The prepared folder: where each workspace is, and the manifest of what was prepared.

::

    DIR/lmr-workspaces.json             the manifest (outside every workspace)
    DIR/<task>/<index>/                 the workspace of one implementation
        INSTRUCTION.md                  which function to write, in which file
        paper.pdf                       the paper
        <repo folder>/...               the masked repository (full), only the goal
                                        file (paper-and-goal-file), or absent (paper-only)

The manifest records the benchmark, the setting and, per workspace, the SHA-256 of every
file as prepared and of the pristine masked goal file, so `collect` can tell each change
an agent made and check that the benchmark has not moved under the workspaces.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from lmr_author.util.atomic import atomic_write_json
from lmr_author.util.errors import UserError

MANIFEST_FILE = "lmr-workspaces.json"
FORMAT = "lmr-workspaces/1"
INSTRUCTION_FILE = "INSTRUCTION.md"


def workspace_path(task: str, implementation: int) -> str:
    """The workspace of one implementation, relative to the prepared folder."""
    return f"{task}/{implementation}"


@dataclass(frozen=True)
class WorkspaceEntry:
    """One prepared workspace."""

    task: str
    implementation: int
    path: str  # relative to the prepared folder, POSIX
    goal_file: str  # relative to the workspace: <repo folder>/<goal file of info.json>
    goal_function: str
    class_name: str
    masked_sha256: str  # the benchmark's masked goal file when prepared
    files: dict[str, str] = field(default_factory=dict)  # relative path -> SHA-256

    @property
    def item(self) -> str:
        return f"{self.task}#{self.implementation}"

    def to_json(self) -> dict[str, Any]:
        return {
            "task": self.task,
            "implementation": self.implementation,
            "path": self.path,
            "goal_file": self.goal_file,
            "goal_function": self.goal_function,
            "class_name": self.class_name,
            "masked_sha256": self.masked_sha256,
            "files": dict(sorted(self.files.items())),
        }


@dataclass(frozen=True)
class Manifest:
    """What `prepare` wrote: the benchmark, the setting and every workspace."""

    benchmark: str  # absolute path of the benchmark folder
    setting: str
    workspaces: list[WorkspaceEntry]

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "benchmark": self.benchmark,
            "setting": self.setting,
            "workspaces": [entry.to_json() for entry in self.workspaces],
        }


def save_manifest(folder: Path, manifest: Manifest) -> Path:
    path = Path(folder) / MANIFEST_FILE
    atomic_write_json(path, manifest.to_json(), indent=2)
    return path


def load_manifest(folder: Path) -> Manifest:
    """Read ``DIR/lmr-workspaces.json``; a malformed one is a `UserError` naming the field."""
    path = Path(folder) / MANIFEST_FILE
    hint = "Point at a folder written by 'lmr-author prepare', or prepare it again."
    if not Path(folder).is_dir():
        raise UserError("no such folder", file=folder, hint=hint)
    if path.is_symlink() or not path.is_file():
        raise UserError("no workspace manifest here", file=path, hint=hint)
    from lmr_author.util.json_input import load_json

    data = load_json(path, what="workspace manifest", hint=hint)
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise UserError(f"not a {FORMAT} manifest", file=path, where="$.format", hint=hint)

    def need(obj: Any, key: str, kind: type, where: str) -> Any:
        value = obj.get(key) if isinstance(obj, dict) else None
        if not isinstance(value, kind) or isinstance(value, bool):
            raise UserError(
                f"'{key}' is missing or not a {kind.__name__}",
                file=path,
                where=f"{where}.{key}",
                hint=hint,
            )
        return value

    entries: list[WorkspaceEntry] = []
    for position, raw in enumerate(need(data, "workspaces", list, "$")):
        where = f"$.workspaces[{position}]"
        files = need(raw, "files", dict, where)
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in files.items()):
            raise UserError("'files' must map paths to hashes", file=path, where=where, hint=hint)
        entry = WorkspaceEntry(
            task=need(raw, "task", str, where),
            implementation=need(raw, "implementation", int, where),
            path=need(raw, "path", str, where),
            goal_file=need(raw, "goal_file", str, where),
            goal_function=need(raw, "goal_function", str, where),
            class_name=need(raw, "class_name", str, where),
            masked_sha256=need(raw, "masked_sha256", str, where),
            files=dict(files),
        )
        for name in (entry.path, entry.goal_file, *entry.files):
            relative = PurePosixPath(name)
            if not name or relative.is_absolute() or ".." in relative.parts:
                raise UserError(
                    f"the path {name!r} leaves the prepared folder",
                    file=path,
                    where=where,
                    hint=hint,
                )
        entries.append(entry)
    return Manifest(
        benchmark=need(data, "benchmark", str, "$"),
        setting=need(data, "setting", str, "$"),
        workspaces=entries,
    )
