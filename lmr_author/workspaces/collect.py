"""Turn edited agent workspaces back into a mirrored submission, and list what else changed.

Only the goal function is taken from a workspace: it is extracted from the workspace's
goal file with the libcst engine and spliced into the benchmark's pristine masked goal
file, so edits elsewhere in the goal file, in the tests or in any other file are never
scored. They are reported instead, one `Change` each. Workspace files are data: a goal
file that is (or lies behind) a symlink is that item's error, and symlinks elsewhere are
listed, never followed (`lmr_author.workspaces.files`).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import stat
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from lmr_author.cst.goal_lines import GoalLines
from lmr_author.domain.task import Implementation, Task
from lmr_author.eval_loop.submissions import COLLECT_RECORD, check_system_name
from lmr_author.util.atomic import atomic_write_bytes, atomic_write_json
from lmr_author.util.errors import UserError
from lmr_author.workspaces.files import NotRegularFile, read_file, scan
from lmr_author.workspaces.manifest import Manifest, WorkspaceEntry

#: The collect report, written beside the mirrored goal files (``eval`` names the
#: submission's system from it; the name is owned by the submission reader).
REPORT_FILE = COLLECT_RECORD
_TEST_PART = re.compile(r"unit_tests?(?:_\d+)?|tests?")


@dataclass(frozen=True)
class Change:
    """One change an agent made outside the goal function (listed, never scored)."""

    task: str
    implementation: int
    path: str  # relative to the workspace
    change: str  # added, modified, deleted, symlink, special, outside-goal-function
    kind: str  # test, fixture, goal-file, other

    def describe(self) -> str:
        return f"{self.task}#{self.implementation}: {self.path} {self.change} ({self.kind})"

    def to_json(self) -> dict[str, Any]:
        return {
            "task": self.task,
            "implementation": self.implementation,
            "path": self.path,
            "change": self.change,
            "kind": self.kind,
        }


@dataclass(frozen=True)
class ItemOutcome:
    """What `collect` took from one workspace: the goal function, or why nothing."""

    task: str
    implementation: int
    collected: bool
    reason: str = ""  # why nothing was collected
    unchanged: bool = False  # the goal function is still the masked one

    def to_json(self) -> dict[str, Any]:
        return {
            "task": self.task,
            "implementation": self.implementation,
            "collected": self.collected,
            "reason": self.reason,
            "unchanged": self.unchanged,
        }


@dataclass
class CollectReport:
    """The outcome of `collect_workspaces`."""

    system: str
    setting: str
    submission: Path
    items: list[ItemOutcome] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)
    written: list[str] = field(default_factory=list)  # goal files, relative to submission

    @property
    def collected(self) -> int:
        return sum(1 for item in self.items if item.collected)

    @property
    def errors(self) -> list[ItemOutcome]:
        return [item for item in self.items if not item.collected]

    def to_json(self) -> dict[str, Any]:
        return {
            "system": self.system,
            "setting": self.setting,
            "collected": self.collected,
            "items": [item.to_json() for item in self.items],
            "changes": [change.to_json() for change in self.changes],
            "written": list(self.written),
        }


def change_kind(path: str, goal_file: str) -> str:
    """``goal-file``, ``fixture``, ``test`` or ``other``, by where ``path`` is."""
    if path == goal_file:
        return "goal-file"
    parts = PurePosixPath(path).parts[:-1]
    if any(_TEST_PART.fullmatch(part) for part in parts):
        return "fixture" if "fixtures" in parts or "data" in parts else "test"
    name = PurePosixPath(path).name
    return "test" if name.startswith("test_") or name.startswith("unit_test") else "other"


def collect_workspaces(
    folder: Path,
    manifest: Manifest,
    tasks: Sequence[Task],
    system: str,
    out: Path,
    goal_lines: GoalLines | None = None,
) -> CollectReport:
    """Collect every workspace of ``manifest`` into the mirrored submission ``out``.

    ``goal_lines`` (``--line``, checked with `resolve_goal_lines`) chooses the goal's
    definition by its line in the masked goal file.
    """
    goal_lines = goal_lines or {}
    check_system_name(system, origin="--system")
    folder, out = Path(folder), Path(out)
    if out.resolve() == folder.resolve() or folder.resolve() in out.resolve().parents:
        raise UserError(
            "the submission cannot be written inside the workspaces",
            file=out,
            hint="Give a folder outside the prepared folder.",
        )
    by_name = {task.name: task for task in tasks}
    report = CollectReport(system, manifest.setting, out)
    # Goal files with their implementations spliced in, one per task and goal file.
    goal_files: dict[tuple[str, str], bytes] = {}
    pristine: dict[tuple[str, str], bytes] = {}
    filled: set[tuple[str, str]] = set()
    for entry in manifest.workspaces:
        task = by_name.get(entry.task)
        if task is None:
            raise UserError(
                f"the benchmark has no task {entry.task}",
                file=manifest.benchmark,
                hint="Collect against the benchmark the workspaces were prepared from.",
            )
        impl = task.implementation(entry.implementation)
        slot = (task.name, impl.goal_file)
        if slot not in pristine:
            pristine[slot] = goal_files[slot] = _pristine(impl, entry)
        root = folder / entry.path
        if not _plain_folder(folder, entry.path):
            report.items.append(
                ItemOutcome(
                    entry.task,
                    entry.implementation,
                    False,
                    f"the workspace {entry.path} is missing or not a plain folder (a symlink?)",
                )
            )
            continue
        report.changes.extend(_changes(root, entry))
        outcome, spliced, outside = _take_goal_function(
            root,
            entry,
            impl,
            goal_files[slot],
            pristine[slot],
            goal_lines.get((task.name, impl.index)),
        )
        report.items.append(outcome)
        if outside:
            report.changes.append(
                Change(task.name, impl.index, entry.goal_file, "outside-goal-function", "goal-file")
            )
        if spliced is not None:
            goal_files[slot] = spliced
            filled.add(slot)
    _check_target(out)
    for task_name, goal_file in sorted(pristine):
        task = by_name[task_name]
        relative = f"{task_name}/{task.repo_folder_name}/{goal_file}"
        if (task_name, goal_file) in filled:
            atomic_write_bytes(out / relative, goal_files[(task_name, goal_file)])
            report.written.append(relative)
        else:  # a goal file of an earlier collect must not be scored for this one
            with contextlib.suppress(FileNotFoundError):
                (out / relative).unlink()
    atomic_write_json(out / REPORT_FILE, report.to_json(), indent=2)
    return report


def _pristine(impl: Implementation, entry: WorkspaceEntry) -> bytes:
    """The benchmark's masked goal file, checked against the hash recorded at prepare time."""
    try:
        data = impl.goal_path.read_bytes()
    except OSError as error:
        raise UserError(
            f"cannot read the masked goal file ({error.strerror})", file=impl.goal_path
        ) from None
    if hashlib.sha256(data).hexdigest() != entry.masked_sha256:
        raise UserError(
            f"the masked goal file of {entry.item} changed since the workspaces were prepared",
            file=impl.goal_path,
            hint="Collect against the benchmark as it was when 'lmr-author prepare' ran.",
        )
    return data


def _changes(root: Path, entry: WorkspaceEntry) -> list[Change]:
    """Every file added, modified, deleted, or not a regular file, but the goal file."""
    found = {item.path: item for item in scan(root)}
    changes: list[Change] = []
    for path in sorted(set(found) | set(entry.files)):
        if path == entry.goal_file:
            continue
        item = found.get(path)
        if item is None:
            change = "deleted"
        elif item.kind != "file":
            change = item.kind
        elif path not in entry.files:
            change = "added"
        elif entry.files[path] != item.sha256:
            change = "modified"
        else:
            continue
        changes.append(
            Change(
                entry.task, entry.implementation, path, change, change_kind(path, entry.goal_file)
            )
        )
    return changes


def _take_goal_function(
    root: Path,
    entry: WorkspaceEntry,
    impl: Implementation,
    current: bytes,
    masked: bytes,
    line: int | None = None,
) -> tuple[ItemOutcome, bytes | None, bool]:
    """``(outcome, current with the goal function spliced in, edits outside it?)``.

    ``line`` is of the masked file; the edited and the current file (where other goal
    functions may already be spliced) have the same definition at other lines.
    """
    from lmr_author.cst.extract import extract_function
    from lmr_author.cst.goal_lines import corresponding_line
    from lmr_author.cst.index import list_functions
    from lmr_author.cst.splice import splice_function

    def line_in(source: bytes) -> int | None:
        if line is None:
            return None
        there = corresponding_line(
            list_functions(masked),
            list_functions(source),
            impl.goal_function,
            impl.class_name,
            line,
        )
        if there is None:
            raise UserError(f"the file has no definition matching --line {line}")
        return there

    def failed(reason: str) -> tuple[ItemOutcome, None, bool]:
        return ItemOutcome(entry.task, entry.implementation, False, reason), None, False

    try:
        edited = read_file(root, entry.goal_file)
    except NotRegularFile as error:
        return failed(f"the goal file {error.relative} is {error.what}")
    try:
        function = _extract(extract_function, edited, impl, entry.goal_file, line_in(edited))
        spliced = splice_function(
            current,
            function,
            impl.goal_function,
            impl.class_name,
            line=line_in(current),
            filename=entry.goal_file,
        )
        if entry.goal_file in entry.files:
            # Prepared with the goal file: anything but the function differs from the
            # masked file with the function spliced in.
            alone = splice_function(
                masked,
                function,
                impl.goal_function,
                impl.class_name,
                line=line,
                filename=entry.goal_file,
            )
            outside = alone != edited
        else:  # paper-only: the agent wrote the file; anything beside the function is extra
            outside = edited.decode("utf-8", "replace").strip() != function.strip()
    except Exception as error:  # UserError from the cst engine, or anything on odd input
        return failed(f"cannot take the goal function: {' '.join(str(error).split())}")
    unchanged = hashlib.sha256(edited).hexdigest() == entry.files.get(entry.goal_file, "")
    return (
        ItemOutcome(entry.task, entry.implementation, True, unchanged=unchanged),
        spliced,
        outside,
    )


def _extract(
    extract: Any, source: bytes, impl: Implementation, filename: str, line: int | None
) -> str:
    """The goal function of ``source``; a method written without its class is taken too."""
    try:
        return str(
            extract(source, impl.goal_function, impl.class_name, line=line, filename=filename)
        )
    except UserError:
        if not impl.class_name or line is not None:
            raise
        return str(extract(source, impl.goal_function, "", filename=filename))


def _check_target(out: Path) -> None:
    """Refuse a non-empty folder that an earlier `collect` did not write."""
    if out.is_symlink() or (out.exists() and not out.is_dir()):
        raise UserError("the submission path is not a folder", file=out, hint="Give a folder.")
    if out.is_dir() and any(out.iterdir()) and not (out / REPORT_FILE).is_file():
        raise UserError(
            "the submission folder is not empty and was not written by 'lmr-author collect'",
            file=out,
            hint="Give a new folder, or the folder of an earlier collect to replace it.",
        )


def _plain_folder(folder: Path, relative: str) -> bool:
    """Whether every step of ``folder/relative`` is a real folder (no symlink on the way)."""
    current = folder
    for part in PurePosixPath(relative).parts:
        current = current / part
        try:
            if not stat.S_ISDIR(os.lstat(current).st_mode):
                return False
        except OSError:
            return False
    return True
