"""What an annotator reads for one review item: instruction, golden function, candidate.

Loading touches the benchmark and the run folder, so the TUI calls `load_item_content`
from a worker thread. Nothing here raises for a missing or broken file: the reviewer still
has to see what is there, so each part carries a note saying what could not be shown.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path

from lmr_author.cst.extract import extract_function
from lmr_author.domain.task import load_task
from lmr_author.review.items import ReviewItem
from lmr_author.util.errors import UserError


@dataclass(frozen=True)
class ItemContent:
    """The text of one review item; ``*_note`` explains a part that could not be loaded."""

    instruction: str
    golden: str
    candidate: str
    golden_note: str = ""
    candidate_note: str = ""
    goal_label: str = ""  # e.g. "model.py :: DPOTrainer.dpo_loss"

    def diff(self) -> str:
        """Unified diff from the golden function to the candidate."""
        return unified_diff(self.golden, self.candidate)


def unified_diff(golden: str, candidate: str) -> str:
    """A unified diff (golden -> candidate); "" when they are the same."""
    lines = difflib.unified_diff(
        golden.splitlines(keepends=True),
        candidate.splitlines(keepends=True),
        fromfile="golden",
        tofile="candidate",
    )
    text = "".join(line if line.endswith("\n") else line + "\n" for line in lines)
    return text


def load_item_content(item: ReviewItem, benchmark_dir: Path | None) -> ItemContent:
    """Read the instruction and golden function from the task and the candidate from the run."""
    goal_function, class_name = item.goal_function, item.class_name
    instruction = ""
    golden = ""
    golden_note = ""
    goal_file = item.goal_file
    if benchmark_dir is None:
        golden_note = "The golden function is unavailable: results.json names no benchmark."
    else:
        try:
            task = load_task(benchmark_dir / item.task)
            impl = task.implementation(item.implementation)
        except UserError as error:
            golden_note = f"The task could not be loaded: {error}"
        else:
            instruction = impl.instruction
            goal_function = goal_function or impl.goal_function
            class_name = class_name or impl.class_name
            goal_file = goal_file or impl.goal_file
            golden, golden_note = _function_from_file(
                impl.golden_path, goal_function, class_name, "golden file"
            )
    candidate, candidate_note = _function_from_file(
        item.candidate_path, goal_function, class_name, "candidate file"
    )
    qualified = f"{class_name}.{goal_function}" if class_name else goal_function
    return ItemContent(
        instruction=instruction,
        golden=golden,
        candidate=candidate,
        golden_note=golden_note,
        candidate_note=candidate_note,
        goal_label=f"{goal_file} :: {qualified}" if goal_file else qualified,
    )


def _function_from_file(path: Path, function: str, class_name: str, what: str) -> tuple[str, str]:
    """The goal function's source in ``path`` and a note; the whole file if it is not found."""
    try:
        source = path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return "", f"The {what} is missing: {path}"
    except OSError as error:
        return "", f"The {what} cannot be read ({error.strerror}): {path}"
    if not function:
        return source, f"The run names no goal function; showing the whole {what}."
    try:
        return extract_function(source, function, class_name, with_class_context=True), ""
    except UserError as error:
        return source, f"Showing the whole {what}: {error.message}."
    except (SyntaxError, ValueError) as error:
        return source, f"Showing the whole {what}: {error}."
