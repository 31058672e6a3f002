"""Step 4 of new-task: what masking will do to the goal file, as a diff."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path

from lmr_author.authoring.spec import GoalSpec
from lmr_author.errors import UserError


@dataclass(frozen=True)
class MaskPreview:
    golden: str
    masked: str
    diff: str  # unified diff golden -> masked


def mask_preview(repo_dir: Path, goal: GoalSpec) -> MaskPreview:
    """Mask ``goal`` in a copy of its file (nothing is written) and diff the two."""
    from lmr_author.cst.mask import mask_function

    path = repo_dir / goal.goal_file
    try:
        golden = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise UserError(f"cannot read the goal file: {error}", file=path) from None
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
