"""Step 4: the diff between the golden file and the masked file, per mask style."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from rich.syntax import Syntax
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widgets import Label, RadioButton, RadioSet, Select, Static

from lmr_author.authoring.preview import MaskPreview, mask_preview
from lmr_author.cst.mask import MASK_STYLES
from lmr_author.tui.new_task.steps._goal_picker import goal_select
from lmr_author.tui.new_task.steps.base import StepScreen
from lmr_author.util.errors import UserError

STYLE_HELP = {
    "lmr": "docstring, TODO, the last return line kept (as published)",
    "todo": "docstring, TODO, raise NotImplementedError",
}


class StyleChoice(RadioButton):
    """A mask style in the choice: the chosen one reads "◉" with a bold label, the others
    "○" with a muted one, so the choice shows in any colours (or none); the cursor of the
    focused choice is the block cursor of every list (new_task.tcss)."""

    def render(self) -> Content:
        mark = Content.styled("◉" if self.value else "○", self.get_visual_style("toggle--button"))
        label = self.label.pad(1, 1).stylize_before(self.get_visual_style("toggle--label"))
        return Content.assemble(mark, label)


def _style_label(name: str, chosen: bool) -> str:
    # The radio dot differs only by colour; words and a marker make the choice readable
    # with NO_COLOR and on monochrome terminals.
    return f"{'(chosen) ' if chosen else ''}{name}: {STYLE_HELP[name]}"


def _chosen_text(style: str) -> str:
    return f"Mask style: » {style} «"


class MaskStep(StepScreen):
    STEP_NUMBER = 4
    HELP: ClassVar[str] = "What the agent will see: the goal function's body is masked."

    current = 0
    #: The preview on screen (the diff of the selected goal).
    preview: MaskPreview | None = None

    class Previewed(Message):
        """The golden → masked diff of a goal (or why it could not be made)."""

        def __init__(self, preview: MaskPreview | None, error: str = "") -> None:
            super().__init__()
            self.preview = preview
            self.error = error

    def compose_step(self) -> ComposeResult:
        with Horizontal(classes="row", id="mask-row"):
            yield goal_select(self.spec.goals)
            with RadioSet(id="mask-style"):
                style = self.spec.goals[0].mask_style if self.spec.goals else "lmr"
                for name in MASK_STYLES:
                    yield StyleChoice(
                        _style_label(name, name == style), value=name == style, name=name
                    )
        yield Static(_chosen_text(style), id="mask-chosen")
        yield Label("golden → masked")
        with VerticalScroll(id="diff-pane"):
            yield Static("", id="diff")

    def on_mount(self) -> None:
        self._update()

    def _show_style(self, style: str) -> None:
        for button in self.query(RadioButton):
            if button.name:
                button.label = _style_label(button.name, button.name == style)
        self.query_one("#mask-chosen", Static).update(_chosen_text(style))

    @on(Select.Changed, "#goal-select")
    def _goal_changed(self, event: Select.Changed) -> None:
        if isinstance(event.value, int):
            self.current = event.value
            style = self.spec.goals[self.current].mask_style
            for button in self.query(RadioButton):
                if button.name == style:
                    button.value = True
            self._show_style(style)
            self._update()

    @on(RadioSet.Changed, "#mask-style")
    def _style_changed(self, event: RadioSet.Changed) -> None:
        if not self.spec.goals or event.pressed.name is None:
            return
        self.spec.goals[self.current].mask_style = event.pressed.name
        self.changed()
        self._show_style(event.pressed.name)
        self._update()

    def _update(self) -> None:
        if self.spec.goals:
            self._preview(self.current)

    @work(thread=True, exclusive=True, exit_on_error=False)
    def _preview(self, index: int) -> None:
        goal = self.spec.goals[index]
        try:
            preview = mask_preview(Path(self.spec.repo_path), goal)
        except UserError as error:
            self.post_message(self.Previewed(None, str(error)))
            return
        self.post_message(self.Previewed(preview))

    @on(Previewed)
    def _show(self, message: Previewed) -> None:
        preview = message.preview
        if preview is None:
            self.set_status(message.error, error=True)
            return
        self.preview = preview
        theme = "ansi_dark" if self.app.current_theme.dark else "ansi_light"
        self.query_one("#diff", Static).update(Syntax(preview.diff, "diff", theme=theme))
        removed = sum(
            1
            for line in preview.diff.splitlines()
            if line.startswith("-") and not line.startswith("---")
        )
        self.set_status(f"{removed} line(s) masked")
