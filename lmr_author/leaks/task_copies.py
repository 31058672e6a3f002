"""The copies of a task's goal functions that its repository folder hands the solver."""

from __future__ import annotations

from lmr_author.domain.task import Task
from lmr_author.leaks.copies import MAX_FILE_BYTES, Copy, find_copies
from lmr_author.leaks.goal_code import GoalCode, goal_code
from lmr_author.leaks.regular_files import read_regular


def task_goals(task: Task) -> list[GoalCode]:
    """The golden goal functions of every implementation (those whose golden file reads)."""
    goals: list[GoalCode] = []
    for impl in task.implementations:
        data = read_regular(impl.golden_path, MAX_FILE_BYTES)
        if data is None:
            continue  # missing-path and syntax-error say why
        goals += goal_code(
            data.decode("utf-8", "replace"),
            impl.goal_function,
            impl.class_name,
            implementation=impl.index,
            goal_file=impl.goal_file,
        )
    return goals


def task_copies(
    task: Task,
    *,
    floor: float | None = None,
    paper: bool = True,
    history: bool = True,
) -> list[Copy]:
    """Every copy of the task's goal functions in its repository folder (paths relative to
    the task folder); ``floor``: near misses too (`find_copies`)."""
    goals = task_goals(task)
    # The goal functions themselves are masked: what they still show is the goal's own.
    skip = {(impl.goal_file, goal.qualname) for impl in task.implementations for goal in goals}
    return find_copies(
        task.repo_dir,
        goals,
        prefix=task.repo_folder_name,
        skip=skip,
        floor=floor,
        paper=paper,
        history=history,
    )
