"""What the new-task app previews: a candidate goal function in its file (step 3), and
what masking will do to the goal file, as a diff, with the copies of the goal that the
task would still hand a solver (step 4)."""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from lmr_author.authoring.spec import GoalSpec
from lmr_author.util.json_input import read_text

if TYPE_CHECKING:
    from lmr_author.leaks.copies import Copy

#: Lines shown around a function in the goal picker's preview.
_CONTEXT_LINES = 2


@dataclass(frozen=True)
class FunctionExcerpt:
    """The lines of a function with a little context, as the goal picker shows them."""

    text: str
    first_line: int  # 1-based number of the first line of ``text``
    highlighted: range  # the function's own lines


def function_excerpt(path: Path, start_line: int, end_line: int) -> FunctionExcerpt | None:
    """Lines ``start_line``..``end_line`` of ``path`` and a little around them (None when
    the file cannot be read as text)."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    first = max(start_line - _CONTEXT_LINES - 1, 1)
    last = min(end_line + _CONTEXT_LINES, len(lines))
    return FunctionExcerpt(
        "\n".join(lines[first - 1 : last]), first, range(start_line, end_line + 1)
    )


@dataclass(frozen=True)
class MaskPreview:
    golden: str
    masked: str
    diff: str  # unified diff golden -> masked


def mask_preview(repo_dir: Path, goal: GoalSpec) -> MaskPreview:
    """Mask ``goal`` in a copy of its file (nothing is written) and diff the two."""
    from lmr_author.cst.mask import mask_function

    path = repo_dir / goal.goal_file
    golden = read_text(path, what="goal file")
    masked = mask_function(
        golden, goal.goal_function, goal.class_name, style=goal.mask_style, line=goal.line
    )
    diff = "".join(
        difflib.unified_diff(
            golden.splitlines(keepends=True),
            masked.splitlines(keepends=True),
            fromfile=f"golden/{goal.goal_file}",
            tofile=f"masked/{goal.goal_file}",
        )
    )
    return MaskPreview(golden=golden, masked=masked, diff=diff)


#: Kinds of copy a saved task does not carry: the build leaves out bytecode and ``.git``.
_NOT_CARRIED = frozenset({"bytecode", "git"})


@dataclass(frozen=True)
class GoalCopy:
    """A copy of a goal in the repository, and whether it can be masked like the goal."""

    copy: Copy
    maskable: bool

    @property
    def key(self) -> str:
        """How the draft names it (``GoalSpec.masked_copies``): file and def line."""
        return f"{self.copy.file}:{self.copy.line}"


def goal_copies(repo_dir: Path, goal: GoalSpec, goals: Sequence[GoalSpec]) -> list[GoalCopy]:
    """The copies of ``goal`` (as the repository has it, unmasked) that the saved task's
    repository would still hold, strongest first; the draft's other goals are not copies
    (they are masked too)."""
    from lmr_author.leaks.copies import find_copies
    from lmr_author.leaks.goal_code import goal_code
    from lmr_author.leaks.remedy import maskable_at

    try:
        source = read_text(repo_dir / goal.goal_file, what="goal file")
    except Exception:  # a goal file that cannot be read has no copies to show
        return []
    code = goal_code(
        source, goal.goal_function, goal.class_name, line=goal.line, goal_file=goal.goal_file
    )
    skip = {
        (other.goal_file, f"{other.class_name}.{other.goal_function}".lstrip("."))
        for other in goals
    }
    found = find_copies(repo_dir, code, skip=skip, paper=False, history=False)
    goal_files = {other.goal_file for other in goals}

    def maskable(copy: Copy) -> bool:
        # In a goal file the golden file would have to change alike: not masked here.
        return (
            copy.fix == "mask"
            and copy.file not in goal_files
            and maskable_at(repo_dir / copy.file, copy.function, copy.line)
        )

    return [
        GoalCopy(copy, maskable(copy))
        for copy in found
        if copy.level and copy.kind not in _NOT_CARRIED
    ]
