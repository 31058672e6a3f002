"""What the new-task app previews: a candidate goal function in its file (step 3), and
what masking will do to the goal file, as a diff (step 4)."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path

from lmr_author.authoring.spec import GoalSpec
from lmr_author.util.json_input import read_text

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
