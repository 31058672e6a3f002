"""The nine steps of the new-task app, in order."""

from __future__ import annotations

from lmr_author.tui.new_task.steps.base import StepScreen
from lmr_author.tui.new_task.steps.check import CheckStep
from lmr_author.tui.new_task.steps.environment import EnvironmentStep
from lmr_author.tui.new_task.steps.goal import GoalStep
from lmr_author.tui.new_task.steps.instruction import InstructionStep
from lmr_author.tui.new_task.steps.mask import MaskStep
from lmr_author.tui.new_task.steps.paper import PaperStep
from lmr_author.tui.new_task.steps.save import SaveStep
from lmr_author.tui.new_task.steps.source import SourceStep
from lmr_author.tui.new_task.steps.tests import TestsStep

STEPS: tuple[tuple[str, type[StepScreen]], ...] = (
    ("source", SourceStep),
    ("paper", PaperStep),
    ("goal", GoalStep),
    ("mask", MaskStep),
    ("instruction", InstructionStep),
    ("environment", EnvironmentStep),
    ("tests", TestsStep),
    ("check", CheckStep),
    ("save", SaveStep),
)

__all__ = ["STEPS", "StepScreen"]
