"""Which copies of the goal an agent workspace would hand the agent, by setting.

A workspace holds the paper (always), the masked goal file (``paper-and-goal-file``) or
the masked repository minus the folders interpreters leave (``full``: `IGNORED_DIRS`,
so ``__pycache__`` bytecode stays behind, but a ``.git`` folder, build and backup copies
and notebooks come along). A copy in what it holds is a copy the agent can read.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from lmr_author.domain.task import Implementation, Task
from lmr_author.generation.prompt import Setting
from lmr_author.leaks.copies import Copy
from lmr_author.workspaces.files import IGNORED_DIRS


def workspace_copies(
    task: Task, impl: Implementation, setting: Setting, copies: list[Copy]
) -> list[Copy]:
    """The copies among ``copies`` (the task's) that ``impl``'s workspace would hold."""
    goal = f"{task.repo_folder_name}/{impl.goal_file}"
    held = []
    for copy in copies:
        if not copy.level or copy.kind == "installed" or copy.implementation != impl.index:
            continue  # another implementation's goal is not this workspace's answer
        if copy.kind == "paper":
            held.append(copy)
        elif setting is Setting.PAPER_AND_GOAL_FILE:
            if copy.file == goal:
                held.append(copy)
        elif setting is Setting.FULL and not IGNORED_DIRS & set(PurePosixPath(copy.file).parts):
            held.append(copy)
    return held


def leak_lines(copies: list[Copy], *, limit: int = 3) -> str:
    """``file (where): function, similarity`` of the first copies, for one message."""
    shown = [
        f"{c.file} ({c.where}){': ' + c.function if c.function else ''}, {c.describe()}"
        for c in copies[:limit]
    ]
    more = f"; and {len(copies) - limit} more" if len(copies) > limit else ""
    return "; ".join(shown) + more
