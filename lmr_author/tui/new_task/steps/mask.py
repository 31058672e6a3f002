"""Step 4: the diff between the golden file and the masked file, per mask style, and the
copies of the goal that the task would still hand a solver (select them to mask them
like the goal when the task is saved)."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from rich.syntax import Syntax
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.geometry import Size
from textual.message import Message
from textual.widgets import Label, RadioButton, RadioSet, Select, SelectionList, Static
from textual.widgets.selection_list import Selection

from lmr_author.authoring.preview import GoalCopy, MaskPreview, goal_copies, mask_preview
from lmr_author.cst.mask import MASK_STYLES
from lmr_author.tui.new_task.steps._goal_picker import goal_select
from lmr_author.tui.new_task.steps._lists import WrappedSelectionList
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

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        # As many lines as the wrapped words take (a toggle button is one line, cut).
        return max(1, len(self.render().wrap(max(width, 1))))


def _style_label(name: str, chosen: bool) -> str:
    # The radio dot differs only by colour; words and a marker make the choice readable
    # with NO_COLOR and on monochrome terminals.
    return f"{'(chosen) ' if chosen else ''}{name}: {STYLE_HELP[name]}"


COPIES_LABEL = "Copies a solver could read (space: mask it like the goal when the task is saved)"


def _not_maskable(item: GoalCopy) -> str:
    """Why a copy cannot be masked here, and what to do instead."""
    if item.copy.kind in ("build", "backup"):
        return "a copy made by a tool: delete it"
    if item.copy.kind == "source":
        return "in a goal file or nested: edit it by hand"
    return "remove it by hand"


def _chosen_text(style: str) -> str:
    return f"Mask style: » {style} «"


class MaskStep(StepScreen):
    STEP_NUMBER = 4
    HELP: ClassVar[str] = "What the agent will see: the goal function's body is masked."

    current = 0
    #: The preview on screen (the diff of the selected goal).
    preview: MaskPreview | None = None
    #: The copies listed for the selected goal.
    _copies: tuple[GoalCopy, ...] = ()

    class CopiesFound(Message):
        """The copies of goal ``index`` in the repository (strongest first)."""

        def __init__(self, index: int, copies: list[GoalCopy]) -> None:
            super().__init__()
            self.index = index
            self.copies = copies

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
        # Shown only when the goal has copies a solver could read.
        yield Label(COPIES_LABEL, id="copies-label")
        yield WrappedSelectionList(id="copies")

    def on_mount(self) -> None:
        self._show_copies([])
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
            self._show_copies([])
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
        self.query_one("#diff", Static).update(
            Syntax(preview.diff, "diff", theme=theme, word_wrap=True)
        )
        removed = sum(
            1
            for line in preview.diff.splitlines()
            if line.startswith("-") and not line.startswith("---")
        )
        self.set_status(f"{removed} line(s) masked")
        self._find_copies(self.current)

    @work(thread=True, exclusive=True, group="copies", exit_on_error=False)
    def _find_copies(self, index: int) -> None:
        repo = Path(self.spec.repo_path)
        try:
            copies = goal_copies(repo, self.spec.goals[index], self.spec.goals)
        except Exception:  # a help, never a blocker: validate reports copies again
            copies = []
        self.post_message(self.CopiesFound(index, copies))

    @on(CopiesFound)
    def _copies_found(self, message: CopiesFound) -> None:
        if message.index != self.current:
            return  # the goal changed since
        self._show_copies(message.copies)
        self._say_copies()

    def _say_copies(self) -> None:
        """The copies and how many are ticked, said again at each tick (the count once
        stayed at its first value until the step was left)."""
        copies = self._copies
        if copies:
            masked = set(self.query_one("#copies", SelectionList).selected)
            self.app.clear_notifications()  # one error toast, of the count now
            self.set_status(
                f"{len(copies)} cop{'y' if len(copies) == 1 else 'ies'} of "
                f"this goal a solver could read ({len(masked)} to be masked): see below",
                # An error while a copy as good as the answer stays readable.
                error=any(c.copy.level == "error" and c.key not in masked for c in copies),
            )

    def _show_copies(self, copies: list[GoalCopy]) -> None:
        listing = self.query_one("#copies", SelectionList)
        listing.clear_options()
        self._copies = tuple(copies)
        chosen = set(self.spec.goals[self.current].masked_copies) if self.spec.goals else set()
        for item in copies:
            copy = item.copy
            action = "" if item.maskable else f"  ({_not_maskable(item)})"
            prompt = (
                f"{copy.level:<7} {copy.file} [{copy.where}] {copy.function or '(code)'}: "
                f"{copy.describe()}{action}"
            )
            listing.add_option(
                Selection(
                    prompt,
                    item.key,
                    item.maskable and item.key in chosen,
                    disabled=not item.maskable,
                )
            )
        listing.display = bool(copies)
        if copies:
            listing.highlighted = 0  # space toggles the first one as soon as it has focus
        self.query_one("#copies-label", Label).display = bool(copies)

    @on(SelectionList.SelectedChanged, "#copies")
    def _copies_chosen(self, event: SelectionList.SelectedChanged[str]) -> None:
        if not self.spec.goals:
            return
        chosen = sorted(event.selection_list.selected)
        goal = self.spec.goals[self.current]
        if chosen != goal.masked_copies:
            goal.masked_copies = chosen
            self.changed()
            self._say_copies()
