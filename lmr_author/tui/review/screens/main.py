"""The review screen: one item at a time, labeled with 1/2/3, moved through with n/p.

Labels go through `ReviewSession.label`, which writes to the label store before it
returns, so a label is durable the moment its key is handled; z undoes the session's
last label, x clears the item's. Reading an item's files happens in a thread worker that
posts the content back; the screen never waits on disk. The layout fits 80×24: one-row
buttons, a compact footer, code that wraps, and a split the annotator moves with [ ].
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Button, Footer, Header, Static
from textual.widgets.button import ButtonVariant
from textual.worker import Worker, WorkerState

from lmr_author.domain.three_way import ThreeWayLabel
from lmr_author.review.content import ItemContent
from lmr_author.review.items import ReviewItem
from lmr_author.review.session import ReviewSession
from lmr_author.tui.review.screens.comment import CommentScreen
from lmr_author.tui.review.screens.confirm import ConfirmScreen
from lmr_author.tui.review.widgets import CodeView, ItemInfo
from lmr_author.util.errors import UserError


class ReviewScreen(Screen[None]):
    """Label the items of a review session, keyboard or mouse."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("1", "label(1)", "LI"),
        Binding("2", "label(2)", "LC"),
        Binding("3", "label(3)", "CC"),
        Binding("c", "comment", "Comment"),
        Binding("n", "next", "Next"),
        Binding("p", "previous", "Prev"),
        Binding("z", "undo", "Undo"),
        Binding("x", "clear", "Clear"),
        Binding("d", "toggle_diff", "Diff"),
        Binding("w", "toggle_wrap", "Wrap"),
        Binding("left_square_bracket", "split(-1)", "Golden narrower", show=False),
        Binding("right_square_bracket", "split(1)", "Golden wider", show=False),
        Binding("u", "toggle_unlabeled", "Unlabeled only", show=False),
        Binding("q", "quit", "Quit"),
    ]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (34, "-tall")]  # noqa: RUF012 (Textual's ClassVar)

    position: reactive[int] = reactive(0, init=False)
    only_unlabeled: reactive[bool] = reactive(False, init=False)

    @dataclass
    class ContentLoaded(Message):
        """An item's files were read by the worker."""

        item: ReviewItem
        content: ItemContent

    def __init__(self, session: ReviewSession) -> None:
        super().__init__()
        self.session = session
        self.set_reactive(ReviewScreen.position, session.first_position())

    @property
    def item(self) -> ReviewItem:
        return self.session.items[self.position]

    def compose(self) -> ComposeResult:
        yield Header()
        yield ItemInfo(id="item-info")
        with VerticalScroll(id="instruction-pane"):
            yield Static("", id="instruction")
        yield CodeView(id="code")
        with Horizontal(id="buttons"):
            variants: tuple[tuple[ThreeWayLabel, ButtonVariant], ...] = (
                (ThreeWayLabel.LI, "error"),
                (ThreeWayLabel.LC, "warning"),
                (ThreeWayLabel.CC, "success"),
            )
            for value, variant in variants:
                yield Button(
                    f"{value.value} {value.short}",
                    id=f"label-{value.value}",
                    classes="label-button",
                    variant=variant,
                    tooltip=value.long,
                    compact=True,
                )
            yield Button("◀ Prev", id="previous", compact=True)
            yield Button("Next ▶", id="next", compact=True)
            yield Button("Comment", id="comment-button", compact=True)
            yield Button("Undo", id="undo-button", compact=True, tooltip="Undo your last label")
            yield Button("Clear", id="clear-button", compact=True, tooltip="Remove this label")
            yield Button("Diff", id="diff-button", compact=True, tooltip="Diff or side by side")
            yield Button("[ ]", id="split-button", compact=True, tooltip="Widen the golden pane")
        yield Static("", id="status")
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        self.query_one("#instruction-pane").border_title = "instruction"
        self._show_item()
        labeled, total, _stale = self.session.progress()
        if labeled == total:
            self._say(f"All {total} items are labeled.", title="Review")

    # -- showing ---------------------------------------------------------------------
    def watch_position(self) -> None:
        self._show_item()

    def watch_only_unlabeled(self) -> None:
        self._refresh_info()

    def _show_item(self) -> None:
        self._refresh_info()
        cached = self.session.cached_content(self.item)
        if cached is not None:
            self._show_content(cached)
            return
        self.query_one("#instruction", Static).update("Loading…")
        self.query_one(CodeView).show_loading()
        self._load_content(self.item)

    def _refresh_info(self) -> None:
        item = self.item
        self.query_one(ItemInfo).show(
            item=item,
            title=self.session.title(item),
            position=self.position,
            total=len(self.session.items),
            progress=self.session.progress(),
            only_unlabeled=self.only_unlabeled,
            state=self.session.state(item),
            comment=self.session.comment_for(item),
            comment_pending=self.session.has_pending_comment(item),
            verdicts_visible=self.session.verdicts_visible(item),
        )

    @work(thread=True, exclusive=True, exit_on_error=False, group="content")
    def _load_content(self, item: ReviewItem) -> None:
        content = self.session.content(item)
        self.post_message(self.ContentLoaded(item, content))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group == "content" and event.state is WorkerState.ERROR:
            error = event.worker.error
            self.query_one("#instruction", Static).update(f"Could not load this item: {error}")
            self.query_one(CodeView).show_error(f"Could not load this item: {error}")

    def on_review_screen_content_loaded(self, message: ContentLoaded) -> None:
        if message.item.key == self.item.key:  # else the annotator has moved on
            self._show_content(message.content)

    def _show_content(self, content: ItemContent) -> None:
        self.query_one("#instruction-pane").border_title = f"instruction  ·  {content.goal_label}"
        self.query_one("#instruction", Static).update(
            content.instruction or "(no instruction: the task could not be loaded)"
        )
        self.query_one(CodeView).show(content)

    def _say(self, text: str, *, title: str = "", severity: str = "information") -> None:
        """Show what the last action did in the status line, replacing what was there.

        One place under the buttons instead of toasts: toasts stacked over the header at
        80 columns and lagged behind (older actions shown after newer ones).
        """
        status = self.query_one("#status", Static)
        status.set_classes(f"-{severity}")
        status.update(f"{title}: {text}" if title else text)

    # -- actions ---------------------------------------------------------------------
    def action_label(self, value: int) -> None:
        item = self.item
        try:
            label = self.session.label(item, value)
        except UserError as error:
            self._say(str(error), title="Label not saved", severity="error")
            return
        self._refresh_info()
        self._say(f"Saved {label.label} {label.name}", title=item.task)

    def action_undo(self) -> None:
        try:
            item = self.session.undo()
        except UserError as error:
            self._say(str(error), title="Not undone", severity="error")
            return
        if item is None:
            self._say("Nothing to undo in this session.", severity="warning")
            return
        state = self.session.state(item)
        now = f"back to {state.label.label} {state.label.name}" if state.label else "unlabeled"
        self._go_to(item)
        self._say(f"Undone: {now}.", title=item.task)

    def action_clear(self) -> None:
        item = self.item
        try:
            cleared = self.session.clear(item)
        except UserError as error:
            self._say(str(error), title="Not cleared", severity="error")
            return
        if cleared is None:
            self._say("This item has no label to clear.", severity="warning")
            return
        self._refresh_info()
        self._say(f"Cleared {cleared.label} {cleared.name} (z undoes).", title=item.task)

    def _go_to(self, item: ReviewItem) -> None:
        position = next(i for i, x in enumerate(self.session.items) if x.key == item.key)
        if position == self.position:
            self._refresh_info()
        else:
            self.position = position

    def action_toggle_wrap(self) -> None:
        code = self.query_one(CodeView)
        code.toggle_wrap()
        self._say("Long lines wrap." if code.wrap else "Long lines scroll sideways.")

    def action_split(self, step: int) -> None:
        self.query_one(CodeView).widen_golden(step)

    def action_next(self) -> None:
        target = self.session.next_position(self.position, only_unlabeled=self.only_unlabeled)
        if target is None:
            what = "unlabeled item" if self.only_unlabeled else "item"
            self._say(f"This is the last {what}.", severity="warning")
            return
        self.position = target

    def action_previous(self) -> None:
        target = self.session.previous_position(self.position, only_unlabeled=self.only_unlabeled)
        if target is None:
            what = "unlabeled item" if self.only_unlabeled else "item"
            self._say(f"This is the first {what}.", severity="warning")
            return
        self.position = target

    def action_toggle_unlabeled(self) -> None:
        self.only_unlabeled = not self.only_unlabeled
        if self.only_unlabeled and self.session.is_done(self.item):
            target = self.session.next_position(self.position, only_unlabeled=True)
            if target is None:
                target = self.session.previous_position(self.position, only_unlabeled=True)
            if target is None:
                self._say("Every item is labeled.")
            else:
                self.position = target

    def action_toggle_diff(self) -> None:
        self.query_one(CodeView).toggle_mode()

    def action_comment(self) -> None:
        item = self.item
        initial = self.session.comment_for(item)
        self.app.push_screen(
            CommentScreen(
                self.session.title(item), initial, lambda text: self._keep_draft(item, text)
            ),
            lambda text: self._save_comment(item, text),
        )

    def _keep_draft(self, item: ReviewItem, text: str) -> None:
        try:
            self.session.keep_draft(item, text)
        except UserError as error:
            self._say(str(error), title="Draft not kept", severity="error")

    def _save_comment(self, item: ReviewItem, text: str | None) -> None:
        if text is None:
            return
        try:
            saved = self.session.comment(item, text)
        except UserError as error:
            self._say(str(error), title="Comment not saved", severity="error")
            return
        if saved is None:
            self._say("The comment will be saved with your label.")
        else:
            self._say("Comment saved.")
        self._refresh_info()

    def action_quit(self) -> None:
        unsaved = self.session.unsaved_comments()
        if not unsaved:
            self.app.exit(0)
            return
        count = len(unsaved)
        items = "1 item" if count == 1 else f"{count} items"
        self.app.push_screen(
            ConfirmScreen(
                f"You typed a comment on {items} that is not stored with a label yet. It is "
                "kept as a draft and comes back next time, but it counts only once you label "
                f"the {'item' if count == 1 else 'items'}. Quit now?",
                yes="Quit",
                no="Stay",
            ),
            self._quit_answered,
        )

    def _quit_answered(self, quit_now: bool | None) -> None:
        if quit_now:
            self.app.exit(0)
        else:
            first = self.session.unsaved_comments()[0]
            self._go_to(first)

    # -- mouse -----------------------------------------------------------------------
    @on(Button.Pressed, ".label-button")
    def _label_button(self, event: Button.Pressed) -> None:
        assert event.button.id is not None
        self.action_label(int(event.button.id.rsplit("-", 1)[1]))

    @on(Button.Pressed, "#next")
    def _next_button(self) -> None:
        self.action_next()

    @on(Button.Pressed, "#previous")
    def _previous_button(self) -> None:
        self.action_previous()

    @on(Button.Pressed, "#comment-button")
    def _comment_button(self) -> None:
        self.action_comment()

    @on(Button.Pressed, "#diff-button")
    def _diff_button(self) -> None:
        self.action_toggle_diff()

    @on(Button.Pressed, "#undo-button")
    def _undo_button(self) -> None:
        self.action_undo()

    @on(Button.Pressed, "#clear-button")
    def _clear_button(self) -> None:
        self.action_clear()

    @on(Button.Pressed, "#split-button")
    def _split_button(self) -> None:
        code = self.query_one(CodeView)
        code.widen_golden(1 if code.split < 100 else -6)
