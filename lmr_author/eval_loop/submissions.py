"""Submissions in their two forms, turned into one candidate goal file per implementation.

A submission is either a folder that mirrors the benchmark with the goal files replaced
(what an agent leaves behind) or a JSONL file of predictions, one function source per
implementation (what a prompting baseline produces; schemas/predictions.schema.json).
Predictions are spliced into the masked goal file with the libcst engine. An
implementation without a candidate, or whose prediction cannot be spliced, still gets a
`Candidate` with a reason, so that it is counted against the system instead of dropped.
"""

from __future__ import annotations

import difflib
import os
import re
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lmr_author.cst.goal_lines import GoalLine, GoalLines, resolve_goal_lines
from lmr_author.domain.task import Implementation, Task, goal_is_test_file
from lmr_author.eval_loop.submission_files import MAX_GOAL_FILE_BYTES, Member, read_member
from lmr_author.eval_output import NO_SUBMISSION
from lmr_author.util.errors import UserError
from lmr_author.util.json_input import parse_json, split_lines

#: Larger predictions files are refused as a whole (they are read into memory).
MAX_PREDICTIONS_BYTES = 256 << 20
#: The record `collect` writes into a mirrored submission; its "system" names the folder.
COLLECT_RECORD = "lmr-collect.json"
#: System names become folder names: keep them path-safe.
SYSTEM_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+-]{0,99}$")


@dataclass(frozen=True)
class Submission:
    """A submission on disk and, optionally, the system name to record it under.

    For a folder, ``system`` defaults to the one its collect record names, else to the
    folder's name. For a JSONL file it names the lines that carry no ``system`` of their
    own.
    """

    path: Path
    system: str | None = None
    #: ``--line TASK[:IMPL]=N`` choices, checked against the tasks when loaded.
    goal_lines: tuple[GoalLine, ...] = ()

    @property
    def is_predictions(self) -> bool:
        return self.path.is_file()


@dataclass
class Candidate:
    """What one system submitted for one implementation of one task."""

    system: str
    task: Task
    implementation: Implementation
    #: The whole goal file to test, or None when there is nothing to run.
    source: bytes | None
    #: The raw prediction (JSONL form), kept next to the run for the judge.
    prediction: str | None = None
    #: Why there is nothing to run (``no submission``, a splice error).
    reason: str = ""


def check_system_name(name: str, *, origin: str) -> str:
    """Return ``name`` if it is a path-safe system name, else raise `UserError`."""
    if not SYSTEM_NAME.match(name):
        raise UserError(
            f"system name {name!r} ({origin}) is not path-safe",
            hint="Use letters, digits, '.', '_', '+' and '-' (such as no_agent-gpt4o).",
        )
    return name


def load_candidates(
    submission: Submission, tasks: list[Task], *, whole_benchmark: bool = True
) -> list[Candidate]:
    """The candidates of one submission for every implementation of ``tasks``.

    With ``whole_benchmark`` (``tasks`` is all of it), a folder holding no goal file of
    any task is taken for a wrong path and refused.
    """
    if not submission.path.exists():
        raise UserError(
            "no such submission",
            file=submission.path,
            hint="Give a folder mirroring the benchmark or a predictions .jsonl file.",
        )
    lines = resolve_goal_lines(submission.goal_lines, tasks)
    if submission.is_predictions:
        return _from_predictions(submission, tasks, whole_benchmark, lines)
    return _from_folder(submission, tasks, whole_benchmark, lines)


def _from_folder(
    submission: Submission, tasks: list[Task], whole_benchmark: bool, lines: GoalLines
) -> list[Candidate]:
    root = submission.path
    system = submission.system or collected_system(root)
    system = check_system_name(system or root.resolve().name, origin=f"submission folder {root}")
    candidates: list[Candidate] = []
    found_any = False
    for task in tasks:
        for impl in task.implementations:
            member = _mirrored_goal_file(root, task, impl)
            if member.missing:
                candidates.append(Candidate(system, task, impl, None, reason=NO_SUBMISSION))
                continue
            found_any = True
            if member.data is not None and goal_is_test_file(task, impl):
                # The goal lives in a test file: the rest of the submitted file is the
                # test itself, so only the goal function is taken from it.
                line = lines.get((task.name, impl.index))
                candidates.append(_function_only(system, task, impl, member.data, line))
                continue
            # A symlink or special file is the system's failure: nothing of it is read.
            candidates.append(Candidate(system, task, impl, member.data, reason=member.refused))
    if tasks and whole_benchmark and not found_any:
        example = tasks[0].implementations[0] if tasks[0].implementations else None
        where = (
            f"{tasks[0].name}/{tasks[0].repo_folder_name}/{example.goal_file}" if example else ""
        )
        raise UserError(
            "this submission folder holds no goal file of any task of the benchmark",
            file=root,
            hint=f"A submission folder mirrors the benchmark, e.g. {where}.",
        )
    return candidates


def collected_system(root: Path) -> str | None:
    """The system named by the collect record of the folder ``root``, if it has one.

    The record lies in a folder the evaluated system may have written, so it is read as
    data like a goal file (no symlink, no special file, `read_member`'s size cap) and
    any fault in it is a `UserError` that says how to go on without it.
    """
    record = root / COLLECT_RECORD
    hint = f"Pass --system NAME after this --submission, or remove {COLLECT_RECORD}."
    member = read_member(root, COLLECT_RECORD, what=f"the collect record {COLLECT_RECORD}")
    if member.refused:
        raise UserError(member.refused, file=record, hint=hint)
    if member.data is None:
        return None
    text = member.data.decode("utf-8", errors="replace")
    data = parse_json(text, file=record, what="collect record", hint=hint)
    system = data.get("system") if isinstance(data, dict) else None
    if not isinstance(system, str) or not system:
        raise UserError(
            "the collect record names no system (no string at $.system)",
            file=record,
            where="$.system",
            hint=hint,
        )
    return check_system_name(system, origin=f"{record}, $.system")


def _function_only(
    system: str, task: Task, impl: Implementation, submitted: bytes, line: int | None
) -> Candidate:
    """The masked goal file with only the goal function of ``submitted`` spliced in
    (what `collect` does); a file whose goal function cannot be taken is the failure.
    ``line`` (of the masked file) chooses the same definition in the submitted file."""
    from lmr_author.cst.extract import extract_function

    where = f"{task.name}/{task.repo_folder_name}/{impl.goal_file}"
    try:
        there = None if line is None else _line_in(impl, submitted, line)
        function = extract_function(
            submitted, impl.goal_function, impl.class_name, line=there, filename=where
        )
    except Exception as error:  # UserError from the cst engine, or anything on odd input
        return Candidate(
            system,
            task,
            impl,
            None,
            reason="the goal file is a test file, so only the goal function is taken from "
            f"it, and it cannot be: {' '.join(str(error).split())}",
        )
    return _splice(system, task, impl, function, prediction=None, line=line)


def _line_in(impl: Implementation, submitted: bytes, line: int) -> int:
    """The line of ``submitted`` holding the definition ``line`` chooses in the masked file."""
    from lmr_author.cst.goal_lines import corresponding_line
    from lmr_author.cst.index import list_functions

    there = corresponding_line(
        list_functions(impl.goal_path.read_bytes()),
        list_functions(submitted),
        impl.goal_function,
        impl.class_name,
        line,
    )
    if there is None:
        raise UserError(f"the file has no definition matching --line {line} of the masked file")
    return there


def _mirrored_goal_file(root: Path, task: Task, impl: Implementation) -> Member:
    """The goal file of ``impl`` in a mirrored folder: with or without the repo folder.

    Read as data (`read_member`): a symlink, a special file or an oversized file on the
    way comes back refused, with the reason, and is never followed or read.
    """
    found = Member()
    for relative in (
        f"{task.name}/{task.repo_folder_name}/{impl.goal_file}",
        f"{task.name}/{impl.goal_file}",
    ):
        found = read_member(root, relative)
        if not found.missing:
            return found
    return found


@dataclass(frozen=True)
class Prediction:
    """One line of a predictions JSONL file."""

    system: str
    task: str
    implementation: int
    source: str
    line: int


def read_predictions(path: Path, default_system: str | None = None) -> list[Prediction]:
    """Parse a predictions JSONL file; raise `UserError` naming the file and line."""
    try:
        text = _read_predictions_file(path).decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise UserError(
            f"not UTF-8 text (byte {error.start})", file=path, hint="Save it as UTF-8."
        ) from None
    except OSError as error:
        raise UserError(f"cannot read the file ({error.strerror})", file=path) from None
    predictions: list[Prediction] = []
    seen: dict[tuple[str, str, int], int] = {}
    for number, raw in split_lines(text):  # "\n" only: JSON strings may hold U+2028
        if not raw.strip():
            continue
        prediction = _parse_line(path, number, raw, default_system)
        slot = (prediction.system, prediction.task, prediction.implementation)
        if slot in seen:
            raise UserError(
                f"a second prediction for system {slot[0]}, task {slot[1]}, implementation "
                f"{slot[2]} (the first is on line {seen[slot]})",
                file=path,
                where=f"line {number}",
                hint="Keep one prediction per system, task and implementation.",
            )
        seen[slot] = number
        predictions.append(prediction)
    if not predictions:
        raise UserError("no predictions in this file", file=path, hint="Write one JSON per line.")
    return predictions


def _read_predictions_file(path: Path) -> bytes:
    """The bytes of a predictions file: a regular file within `MAX_PREDICTIONS_BYTES`."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO must not block us
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise UserError(
                "a predictions file must be a regular file (this is a FIFO, device or socket)",
                file=path,
                hint="Give the .jsonl file itself.",
            )
        if info.st_size > MAX_PREDICTIONS_BYTES:
            raise UserError(
                f"the predictions file is larger than {MAX_PREDICTIONS_BYTES >> 20} MiB",
                file=path,
                hint="Split it by system (one file per --submission).",
            )
        with os.fdopen(os.dup(fd), "rb") as handle:
            return handle.read(MAX_PREDICTIONS_BYTES + 1)[:MAX_PREDICTIONS_BYTES]
    finally:
        os.close(fd)


def _parse_line(path: Path, number: int, raw: str, default_system: str | None) -> Prediction:
    where = f"line {number}"

    def fail(message: str, hint: str) -> UserError:
        return UserError(message, file=path, where=where, hint=hint)

    data: Any = parse_json(raw, file=path, what="predictions file", line=number)
    if not isinstance(data, dict):
        raise fail("a prediction must be a JSON object", 'Write {"task": ..., ...}.')
    task = data.get("task")
    if not isinstance(task, str) or not task:
        raise fail("'task' must be the task folder name (a string)", 'For example "01-DPO".')
    index = data.get("implementation")
    if not isinstance(index, int) or isinstance(index, bool) or index < 1:
        raise fail(
            "'implementation' must be the 1-based implementation index of info.json",
            "The first implementation is 1.",
        )
    source = data.get("source")
    if not isinstance(source, str):
        raise fail("'source' must be the function's source code (a string)", "Add it.")
    system = data.get("system", default_system)
    if not isinstance(system, str) or not system:
        raise fail(
            "'system' is missing",
            'Give each line a "system", or pass --system for the whole file.',
        )
    check_system_name(system, origin=f"{path}, {where}")
    return Prediction(system, task, index, source, number)


def _from_predictions(
    submission: Submission,
    tasks: list[Task],
    whole_benchmark: bool = True,
    lines: GoalLines | None = None,
) -> list[Candidate]:
    lines = lines or {}
    path = submission.path
    predictions = read_predictions(path, submission.system)
    by_name = {task.name: task for task in tasks}
    systems: list[str] = []
    slots: dict[tuple[str, str, int], Prediction] = {}
    for prediction in predictions:
        if prediction.system not in systems:
            systems.append(prediction.system)
        task = by_name.get(prediction.task)
        if task is None and whole_benchmark:  # not a task of this benchmark: say so
            close = difflib.get_close_matches(prediction.task, list(by_name), n=1)
            raise UserError(
                f"a prediction for task {prediction.task!r}, which is not in the benchmark",
                file=path,
                where=f"line {prediction.line}",
                hint=(f"Did you mean {close[0]!r}? " if close else "")
                + "Use the task folder names of the benchmark, or pass --task to pick some.",
            )
        if task is None:
            continue  # a task outside --task
        if prediction.implementation not in {impl.index for impl in task.implementations}:
            raise UserError(
                f"task {task.name} has no implementation {prediction.implementation}",
                file=path,
                where=f"line {prediction.line}",
                hint="Use one of: " + ", ".join(str(i.index) for i in task.implementations) + ".",
            )
        slots[(prediction.system, prediction.task, prediction.implementation)] = prediction
    candidates: list[Candidate] = []
    for system in systems:
        for task in tasks:
            for impl in task.implementations:
                found = slots.get((system, task.name, impl.index))
                if found is None:
                    candidates.append(Candidate(system, task, impl, None, reason=NO_SUBMISSION))
                elif len(found.source) > MAX_GOAL_FILE_BYTES:
                    # Counted against the system; too big to splice, store or judge.
                    reason = f"the prediction is larger than {MAX_GOAL_FILE_BYTES >> 20} MiB"
                    candidates.append(Candidate(system, task, impl, None, reason=reason))
                else:
                    line = lines.get((task.name, impl.index))
                    candidates.append(
                        _splice(
                            system, task, impl, found.source, prediction=found.source, line=line
                        )
                    )
    return candidates


def _splice(
    system: str,
    task: Task,
    impl: Implementation,
    source: str,
    *,
    prediction: str | None,
    line: int | None = None,
) -> Candidate:
    """Put a function into the masked goal file; a failure is the candidate's.

    When the goal file is a test file, helper functions the answer defines next to the
    goal are refused: a new module-level function there could be a test hook.
    """
    try:
        from lmr_author.cst.splice import splice_function
    except ImportError as error:  # pragma: no cover - the cst engine ships with the package
        raise UserError(
            f"predictions need the libcst splice engine, which cannot be imported ({error})",
            hint="Reinstall lmr-author.",
        ) from None
    try:
        masked = impl.goal_path.read_bytes()
    except OSError as error:
        raise UserError(
            f"cannot read the masked goal file ({error.strerror})",
            file=impl.goal_path,
            hint="Check the task with 'lmr-author validate'.",
        ) from None
    try:
        data = splice_function(
            masked,
            source,
            impl.goal_function,
            impl.class_name,
            line=line,
            filename=f"{task.name}/{task.repo_folder_name}/{impl.goal_file}",
            helpers=not goal_is_test_file(task, impl),
        )
    except Exception as error:  # SpliceError, or anything libcst raises on odd input
        what = "prediction" if prediction is not None else "goal function"
        return Candidate(
            system,
            task,
            impl,
            None,
            prediction=prediction,
            reason=f"cannot splice the {what}: {' '.join(str(error).split())}",
        )
    return Candidate(system, task, impl, data, prediction=prediction)


def systems_of(candidates: Iterable[Candidate]) -> list[str]:
    """The systems of ``candidates`` in first-seen order."""
    seen: list[str] = []
    for candidate in candidates:
        if candidate.system not in seen:
            seen.append(candidate.system)
    return seen
