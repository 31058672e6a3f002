"""Loading a benchmark: the one place that turns a folder into tasks, one task at a time.

A benchmark is a task folder or a folder of them. `load_benchmark` narrows by task names
*before* reading anything (``--task X`` never reads another task's info.json), then loads
the tasks one by one: a task that cannot load becomes a `BrokenTask` with its reason
instead of stopping the command, so every command that takes a benchmark lists all
broken tasks at once (`skipped_lines`) and goes on with the rest.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from lmr_author.domain.task import Task, find_task_dirs, load_task
from lmr_author.util.errors import UserError

__all__ = [
    "Benchmark",
    "BrokenTask",
    "load_benchmark",
    "missing_parts",
    "read_as_published",
    "skipped_lines",
]


@dataclass(frozen=True)
class BrokenTask:
    """A task folder that could not be loaded, and why (one line)."""

    name: str
    path: Path
    reason: str

    def to_json(self) -> dict[str, str]:
        return {"task": self.name, "path": str(self.path), "reason": self.reason}


@dataclass
class Benchmark:
    """The tasks that loaded, in folder order, and the ones that did not."""

    path: Path
    tasks: list[Task] = field(default_factory=list)
    broken: list[BrokenTask] = field(default_factory=list)
    #: Published variants read the way the published loop reads them, one line each.
    notes: list[str] = field(default_factory=list)

    def __iter__(self) -> Iterator[Task]:
        return iter(self.tasks)

    def __len__(self) -> int:
        return len(self.tasks)


def load_benchmark(
    benchmark: str | Path,
    names: Sequence[str] | None = None,
    *,
    allow_empty: bool = False,
    runnable: bool = True,
) -> Benchmark:
    """The tasks of ``benchmark`` (a task folder or a folder of them), optionally by name.

    With ``runnable`` (commands that run, generate or prepare), a task missing its
    repository or a goal, golden or test file is broken too; reports need only info.json.

    An unknown name is a usage error listing the task names; a benchmark with no task
    folders, or whose every task is broken, is an error naming the reasons.
    """
    root = Path(benchmark)
    dirs = find_task_dirs(root)
    if not dirs:
        raise UserError(
            "no task folders here (folders with an info.json)",
            file=root,
            hint="Point at a benchmark folder or at one task folder.",
        )
    if names:
        by_name = {path.name: path for path in dirs}
        unknown = [name for name in names if name not in by_name]
        if unknown:
            raise UserError(
                "no such task: " + ", ".join(unknown),
                file=root,
                hint="Tasks here: " + ", ".join(sorted(by_name)) + ".",
            )
        dirs = [by_name[name] for name in dict.fromkeys(names)]
    loaded = Benchmark(path=root)
    for path in dirs:
        try:
            task = load_task(path)
            loaded.notes.extend(read_as_published(task))
            missing = missing_parts(task) if runnable else ""
            if missing:
                loaded.broken.append(BrokenTask(path.name, path, missing))
            else:
                loaded.tasks.append(task)
        except UserError as error:
            loaded.broken.append(BrokenTask(path.name, path, _one_line(error.render())))
        except (OSError, ValueError) as error:  # unreadable files, odd encodings
            loaded.broken.append(BrokenTask(path.name, path, _one_line(str(error))))
    if not loaded.tasks and not allow_empty:
        raise UserError(
            "no task here can be loaded: "
            + "; ".join(f"{item.name}: {item.reason}" for item in loaded.broken[:5]),
            file=root,
            hint="Run 'lmr-author validate' on the folder to see every problem.",
        )
    return loaded


def read_as_published(task: Task) -> list[str]:
    """Point a missing ``unit_test_file`` at ``unit_test/unit_test_<index>.py`` when that
    exists: the published loop runs ``unit_test/unit_test_*.py`` whatever info.json says
    (13-DecBound names ``unit_test.py``; its test is ``unit_test_1.py``)."""
    notes: list[str] = []
    for impl in task.implementations:
        if impl.unit_test_path.is_file():
            continue
        published = f"unit_test/unit_test_{impl.index}.py"
        if (task.repo_dir / published).is_file():
            notes.append(
                f"{task.name}#{impl.index}: info.json names {impl.unit_test_file}, which is "
                f"missing; running {published} as the published loop does "
                "(name it in info.json to silence this)"
            )
            impl.unit_test_file = published
    return notes


def missing_parts(task: Task) -> str:
    """What a task needs to run and lacks (its repository, a goal, golden or test file),
    as one line, or "" when nothing is missing."""
    if not task.repo_dir.is_dir():
        return f"the repository folder {task.repo_folder_name}/ is missing"
    for impl in task.implementations:
        for what, where in (
            ("goal file", impl.goal_path),
            ("golden file", impl.golden_path),
            ("unit test file", impl.unit_test_path),
        ):
            if not where.is_file():
                relative = (
                    where.relative_to(task.path) if where.is_relative_to(task.path) else where
                )
                return f"implementation {impl.index}: the {what} {relative} is missing"
    return ""


def skipped_lines(broken: Sequence[BrokenTask], notes: Sequence[str] = ()) -> list[str]:
    """One line per broken task, for the top of a command's output, then the notes."""
    lines: list[str] = []
    if broken:
        lines.append(f"skipped {len(broken)} task(s) that cannot be loaded:")
        lines += [f"  {item.name}: {item.reason}" for item in broken]
    lines += [f"note: {note}" for note in notes]
    return lines


def _one_line(text: str) -> str:
    return " ".join(text.split())[:400]
