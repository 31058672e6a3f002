"""A selector of the draft's goal functions, for steps that work on one goal at a time."""

from __future__ import annotations

from textual.widgets import Select

from lmr_author.authoring.spec import GoalSpec


def goal_label(goal: GoalSpec) -> str:
    owner = f"{goal.class_name}." if goal.class_name else ""
    return f"{owner}{goal.goal_function} ({goal.goal_file})"


def goal_select(goals: list[GoalSpec]) -> Select[int]:
    """The goal the step works on; with one goal there is nothing to choose, so it takes
    no focus and the step's own field (the instruction, the driver) is the first."""
    select: Select[int] = Select(
        [(goal_label(goal), index) for index, goal in enumerate(goals)],
        value=0 if goals else Select.NULL,
        allow_blank=False,
        id="goal-select",
    )
    select.can_focus = len(goals) > 1
    return select
