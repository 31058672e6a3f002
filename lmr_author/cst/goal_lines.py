"""``--line TASK[:IMPL]=N`` for the commands that splice or extract across a benchmark.

`mask`, `splice` and `extract` act on one file and take ``--line N``. `generate`,
`eval` and `collect` act on many implementations, so their ``--line`` names the one it
is for; N is a line of the implementation's masked goal file (the file in the task's
repository), checked here against that file before anything runs. In other versions of
the file (a submitted file, an agent's workspace) the same definition is found by its
qualified name and position among its namesakes (`corresponding_line`).
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from lmr_author.cst.index import FunctionInfo, list_functions
from lmr_author.cst.locate import locate_function, matching_functions, split_qualified
from lmr_author.domain.task import Implementation, Task
from lmr_author.util.errors import UserError

#: The help of ``--line`` on every benchmark-wide command (keep them identical).
LINE_HELP = (
    "choose the goal function's definition when its name is ambiguous: N is any line "
    "of it in the task's masked goal file; IMPL is needed when the task has several "
    "implementations (repeatable)"
)
LINE_METAVAR = "TASK[:IMPL]=N"
_SPEC = re.compile(r"^(?P<task>[^:=]+?)(?::(?P<impl>\d+))?=(?P<line>\d+)$")

#: (task folder name, implementation index) -> line of the masked goal file.
GoalLines = Mapping[tuple[str, int], int]


@dataclass(frozen=True)
class GoalLine:
    """One ``--line`` value as typed."""

    task: str
    implementation: int | None
    line: int
    text: str


def parse_goal_line(text: str) -> GoalLine:
    """``TASK[:IMPL]=N`` as a `GoalLine` (an ``argparse`` type: bad text is a usage error)."""
    match = _SPEC.match(text.strip())
    if match is None or int(match["line"]) < 1 or (match["impl"] and int(match["impl"]) < 1):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not TASK[:IMPL]=N (e.g. 08-StepLength=88 or 16-KnowProb:2=40; "
            "IMPL and N count from 1)"
        )
    impl = int(match["impl"]) if match["impl"] else None
    return GoalLine(match["task"].strip(), impl, int(match["line"]), text.strip())


def add_line_option(parser: argparse.ArgumentParser) -> None:
    """The one ``--line`` option of `generate`, `eval` and `collect`."""
    parser.add_argument(
        "--line",
        dest="goal_lines",
        action="append",
        default=[],
        type=parse_goal_line,
        metavar=LINE_METAVAR,
        help=LINE_HELP,
    )


def resolve_goal_lines(
    specs: Iterable[GoalLine], tasks: Sequence[Task]
) -> dict[tuple[str, int], int]:
    """Check each ``--line`` against ``tasks``: the task and implementation exist, and N
    lies in a definition of the goal function in its masked goal file."""
    by_name = {task.name: task for task in tasks}
    chosen: dict[tuple[str, int], int] = {}
    for spec in specs:
        task = by_name.get(spec.task)
        if task is None:
            raise UserError(
                f"--line {spec.text}: task {spec.task!r} is not among the tasks of this run.",
                hint="Use a task folder name of the benchmark (and of --task, if given).",
            )
        impl = _implementation(task, spec)
        slot = (task.name, impl.index)
        if slot in chosen:
            raise UserError(
                f"--line {spec.text}: a second --line for {task.name} implementation {impl.index}.",
                hint="Give one --line per implementation.",
            )
        _check_line(task, impl, spec)
        chosen[slot] = spec.line
    return chosen


def _implementation(task: Task, spec: GoalLine) -> Implementation:
    indexes = ", ".join(str(impl.index) for impl in task.implementations)
    if spec.implementation is None:
        if len(task.implementations) == 1:
            return task.implementations[0]
        raise UserError(
            f"--line {spec.text}: task {task.name} has {len(task.implementations)} "
            "implementations; say which one.",
            hint=f"Write {task.name}:IMPL={spec.line} with IMPL one of {indexes}.",
        )
    for impl in task.implementations:
        if impl.index == spec.implementation:
            return impl
    raise UserError(
        f"--line {spec.text}: task {task.name} has no implementation {spec.implementation}.",
        hint=f"Use one of: {indexes}.",
    )


def _check_line(task: Task, impl: Implementation, spec: GoalLine) -> None:
    where = f"{task.name}/{task.repo_folder_name}/{impl.goal_file}"
    try:
        infos = list_functions(impl.goal_path.read_bytes())
    except OSError as error:
        raise UserError(
            f"--line {spec.text}: cannot read the masked goal file ({error.strerror}).",
            file=where,
        ) from None
    except (SyntaxError, ValueError):
        return  # the file's own problem, reported where it is spliced
    try:
        locate_function(infos, impl.goal_function, impl.class_name, line=spec.line, file=where)
    except UserError as error:
        raise UserError(
            f"--line {spec.text}: {error.message}",
            file=where,
            hint="Run 'lmr-author functions FILE' on the masked goal file to see the lines.",
        ) from None


def corresponding_line(
    reference: Sequence[FunctionInfo],
    other: Sequence[FunctionInfo],
    function: str,
    class_name: str,
    line: int,
) -> int | None:
    """The line, in another version of a file, of the definition that ``line`` chooses in
    ``reference`` (same qualified name, same position among namesakes); None when the
    other version has no such definition."""
    name, owner = split_qualified(function, class_name)
    chosen = locate_function(reference, name, owner, line=line)
    namesakes = [info for info in matching_functions(reference, name, owner)]
    same = [info for info in namesakes if info.qualname == chosen.qualname]
    position = same.index(chosen)
    there = [
        info for info in matching_functions(other, name, owner) if info.qualname == chosen.qualname
    ]
    return there[position].def_line if position < len(there) else None
