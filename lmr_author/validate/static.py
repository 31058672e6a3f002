"""Run the static rules over task folders: discovery, one report per task, no tracebacks."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lmr_author.domain.hardware import NO_HARDWARE, Hardware
from lmr_author.domain.task import INFO_FILE
from lmr_author.util.errors import UserError
from lmr_author.validate.context import TaskContext
from lmr_author.validate.findings import Finding
from lmr_author.validate.rules import INTERNAL_ERROR, Rule, all_rules

if TYPE_CHECKING:
    from lmr_author.validate.evidence import ImplementationProof

#: Folders that are never tasks when a benchmark folder is scanned.
_SKIPPED_FOLDERS = {"submissions", "__pycache__", "node_modules"}


@dataclass
class TaskReport:
    """The findings of one task folder."""

    path: Path
    findings: list[Finding] = field(default_factory=list)
    #: What one run of the task needs (info.json ``hardware``), when the task loads.
    hardware: Hardware = NO_HARDWARE
    #: ``--run``: per implementation, what the golden and masked runs showed.
    proofs: list[ImplementationProof] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.path.name or str(self.path)

    @property
    def errors(self) -> int:
        return sum(1 for f in self.findings if f.severity == "error")

    @property
    def warnings(self) -> int:
        return sum(1 for f in self.findings if f.severity == "warning")

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"task": self.name, "findings": [f.to_json() for f in self.findings]}
        if self.hardware.needs_gpu:
            data["hardware"] = self.hardware.to_info()
        if self.proofs:
            data["proof"] = [proof.to_json() for proof in self.proofs]
        return data


def discover_tasks(paths: Sequence[str | Path]) -> list[Path]:
    """The task folders named by ``paths`` (task folders, their info.json, or benchmarks).

    A child folder of a benchmark counts as a task when it has info.json, a Dockerfile
    or golden_files/ (so a task that lost its info.json is reported, not skipped).
    Raises `UserError` when a path does not exist or holds no task.
    """
    found: dict[Path, Path] = {}
    for given in paths:
        try:
            tasks = _tasks_at(Path(given))
        except OSError as error:
            raise UserError(
                f"cannot read this path ({error.strerror or error})", file=given
            ) from None
        except ValueError as error:  # e.g. a NUL character in the path
            raise UserError(f"not a usable path ({error})", file=repr(str(given))) from None
        for task in tasks:
            found.setdefault(task.absolute(), task.absolute())
    return list(found.values())


def _tasks_at(path: Path) -> list[Path]:
    if path.name == INFO_FILE and path.is_file():
        path = path.parent
    if not path.exists():
        raise UserError(
            "no such file or folder",
            file=path,
            hint="Give a task folder (with info.json) or a folder of task folders.",
        )
    if not path.is_dir():
        raise UserError(
            "not a folder",
            file=path,
            hint="Give a task folder (with info.json) or a folder of task folders.",
        )
    if (path / INFO_FILE).exists() or (path / INFO_FILE).is_symlink():
        return [path]
    tasks = [child for child in _children(path) if _looks_like_task(child)]
    if not tasks and _looks_like_task(path):
        return [path]  # a task that lost its info.json: reported, not refused
    if not tasks:
        raise UserError(
            "no task folders here (none has an info.json)",
            file=path,
            hint="Give a task folder or a folder of task folders.",
        )
    return tasks


def _children(path: Path) -> list[Path]:
    try:
        children = sorted(path.iterdir())
    except OSError as error:
        raise UserError(f"cannot list the folder ({error.strerror})", file=path) from None
    return [
        child
        for child in children
        if not child.name.startswith(".") and child.name not in _SKIPPED_FOLDERS and _is_dir(child)
    ]


def _is_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except OSError:
        return False


def _looks_like_task(path: Path) -> bool:
    try:
        return any((path / name).exists() for name in (INFO_FILE, "Dockerfile", "golden_files"))
    except OSError:
        return False


def select_rules(
    *, schema_only: bool = False, ignore: Iterable[str] = (), only: Iterable[str] = ()
) -> list[Rule]:
    """The rules to run; raises `UserError` for an unknown rule id."""
    rules = all_rules()
    known = {r.id for r in rules}
    ignored, selected = set(ignore), set(only)
    unknown = (ignored | selected) - known
    if unknown:
        raise UserError(
            "unknown rule id: " + ", ".join(sorted(unknown)),
            hint="Run 'lmr-author validate --list-rules' to see them.",
        )
    return [
        r
        for r in rules
        if (not schema_only or r.stage != "task")  # --run still proves with --schema-only
        and r.id not in ignored
        and (not selected or r.id in selected)
    ]


def validate_task(
    task_dir: str | Path,
    *,
    schema_only: bool = False,
    rules: Sequence[Rule] | None = None,
) -> TaskReport:
    """Run the static rules on one task folder; never raises for bad task content."""
    chosen = list(rules) if rules is not None else select_rules(schema_only=schema_only)
    wanted = {r.id for r in chosen}
    folder = Path(task_dir).absolute()
    try:
        ctx = TaskContext(folder)
    except Exception as error:  # reading must never become a traceback
        finding = Finding(
            INTERNAL_ERROR,
            "error",
            f"the task folder could not be read: {type(error).__name__}: {error}",
            hint="This is a bug in lmr-author; please report it with the task folder.",
        )
        return TaskReport(folder, [finding])
    report = TaskReport(ctx.path, hardware=ctx.task.hardware if ctx.task else NO_HARDWARE)
    seen: set[Finding] = set()
    # Reading info.json is not a rule of its own: its findings (json-syntax,
    # unreadable-file, missing-path) come first, and without a document nothing else runs.
    batches: list[list[Finding]] = [ctx.load_findings]
    for current in chosen:
        if current.stage == "run" or (ctx.raw is None and current.id != "schema"):
            continue  # run rules are found in Docker (`validate.proof`), not here
        try:
            batches.append(list(current.check(ctx)))
        except Exception as error:  # a rule bug must not hide the other findings
            batches.append([_internal_error(ctx, current, error)])
    for number, batch in enumerate(batches):
        for finding in batch:
            unwanted = finding.rule not in wanted and finding.rule != INTERNAL_ERROR
            if finding in seen or (number > 0 and unwanted):
                continue
            seen.add(finding)
            report.findings.append(finding)
    return report


def _internal_error(ctx: TaskContext, current: Rule, error: Exception) -> Finding:
    return ctx.finding(
        INTERNAL_ERROR,
        f"rule '{current.id}' failed: {type(error).__name__}: {error}",
        severity="error",
        hint="This is a bug in lmr-author; please report it with the task folder.",
    )


def validate_paths(
    paths: Sequence[str | Path],
    *,
    schema_only: bool = False,
    rules: Sequence[Rule] | None = None,
    progress: Callable[[Path], None] | None = None,
) -> list[TaskReport]:
    """Discover the tasks under ``paths`` and validate each one."""
    reports = []
    for task_dir in discover_tasks(paths):
        if progress is not None:
            progress(task_dir)
        reports.append(validate_task(task_dir, schema_only=schema_only, rules=rules))
    return reports
