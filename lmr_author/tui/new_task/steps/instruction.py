"""Step 5: the instruction (prefilled draft), the category, and the retrieval context."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Button, Label, Select, SelectionList, Static, TextArea

from lmr_author.authoring.instruction import InstructionDraft, draft_instruction
from lmr_author.authoring.spec import GoalSpec
from lmr_author.domain.categories import CATEGORIES
from lmr_author.llm.client import ChatClient, ClientSettings, LLMError
from lmr_author.llm.endpoint import settings_from_env
from lmr_author.tui.new_task.steps._file_picker import FilePicker
from lmr_author.tui.new_task.steps._goal_picker import goal_select
from lmr_author.tui.new_task.steps._lists import WrappedSelectionList
from lmr_author.tui.new_task.steps.base import StepScreen
from lmr_author.tui.widgets.code_editor import TextEditor
from lmr_author.util.errors import UserError

#: The model that drafts instructions when OPENAI_MODEL names none.
DRAFT_MODEL = "gpt-4o"


def _endpoint() -> ClientSettings | None:
    """The configured OpenAI-compatible endpoint, or None (then the template draft stays)."""
    try:
        return settings_from_env(default_model=DRAFT_MODEL, concurrency=1)
    except UserError:
        return None


class InstructionStep(StepScreen):
    STEP_NUMBER = 5
    HELP: ClassVar[str] = (
        "Edit the drafted instruction: what the function does, its inputs and outputs, "
        "and anything the agent may ignore."
    )

    current = 0

    def __init__(self) -> None:
        super().__init__()
        self._candidates: list[str] = []  # the retrieval list's entries, ticked or not
        self._template = ""  # the template draft of the current goal

    class Drafted(Message):
        """The instruction drafted from the goal function's source (or why not)."""

        def __init__(self, index: int, draft: InstructionDraft, error: str = "") -> None:
            super().__init__()
            self.index = index
            self.draft = draft
            self.error = error

    def compose_step(self) -> ComposeResult:
        yield goal_select(self.spec.goals)
        # markup=False: a signature's "[float]" is not a style tag (it vanished).
        yield Static("", id="signature", markup=False)
        yield Label("Instruction")
        yield Static("", id="template-note", markup=False)
        yield TextEditor("", id="instruction", soft_wrap=True, tab_behavior="focus")
        with Horizontal(classes="row", id="llm-row"):
            yield Button("Draft from the paper (LLM)", id="llm-draft", compact=True)
            yield Static("", id="llm-note", markup=False)
        yield Label("Category (the paper's Table 4)")
        yield Select(
            [(name, name) for name in CATEGORIES], id="category", prompt="choose a category"
        )
        yield Label("Retrieval context: files the agent is shown for reference (space ticks)")
        yield WrappedSelectionList(id="retrieval")
        with Horizontal(classes="row"):
            yield Button("Add a file…", id="retrieval-add", compact=True)
            yield Button("Remove highlighted", id="retrieval-remove", compact=True)

    def on_mount(self) -> None:
        # Only with an OpenAI-compatible endpoint configured (OPENAI_BASE_URL / _API_KEY).
        self.query_one("#llm-row").display = _endpoint() is not None
        self._load(0)

    class LLMDrafted(Message):
        """The instruction the model drafted from the paper (or why it could not)."""

        def __init__(self, index: int, text: str, section: str, source: str, error: str = ""):
            super().__init__()
            self.index = index
            self.text = text
            self.section = section
            self.source = source
            self.error = error

    @on(Button.Pressed, "#llm-draft")
    def _llm_pressed(self) -> None:
        if not self.spec.goals:
            return
        self.query_one("#llm-draft", Button).disabled = True
        self.set_status("asking the model for a draft from the paper…")
        goal = copy.deepcopy(self.spec.goals[self.current])
        self._llm(self.current, goal, dict(self.authoring.paper_pages))

    @work(thread=True, exclusive=True, group="llm", exit_on_error=False)
    def _llm(self, index: int, goal: GoalSpec, pages: dict[str, str]) -> None:
        from lmr_author.authoring.instruction_llm import draft_instruction_from_paper

        settings = _endpoint()
        if settings is None:
            self.post_message(self.LLMDrafted(index, "", "", "", "no endpoint configured"))
            return
        client = ChatClient(settings)
        try:
            draft = draft_instruction_from_paper(
                Path(self.spec.repo_path),
                goal,
                pages,
                complete=lambda messages: client.complete(messages).text,
            )
        except (LLMError, UserError) as error:
            self.post_message(self.LLMDrafted(index, "", "", "", f"the model failed: {error}"))
            return
        finally:
            client.close()
        self.post_message(self.LLMDrafted(index, draft.text, draft.section, draft.source))

    @on(LLMDrafted)
    def _llm_drafted(self, message: LLMDrafted) -> None:
        self.query_one("#llm-draft", Button).disabled = False
        if message.error:
            self.set_status(message.error, error=True)
            return
        if message.index != self.current:
            return
        self.query_one("#instruction", TextArea).load_text(message.text)  # saved by Changed
        cited = f", citing Section “{message.section}”" if message.section else ""
        note = "drafted by the model" if message.source == "llm" else "template draft"
        self.query_one("#llm-note", Static).update(f"{note}{cited}: edit it")
        self.set_status(f"{note}{cited} ✓")

    def _load(self, index: int) -> None:
        if not self.spec.goals:
            return
        self.current = index
        self._draft(index)

    @work(thread=True, exclusive=True, exit_on_error=False)
    def _draft(self, index: int) -> None:
        goal = self.spec.goals[index]
        try:
            draft = draft_instruction(
                Path(self.spec.repo_path),
                goal.goal_file,
                goal.goal_function,
                goal.class_name,
                goal.line,
            )
        except UserError as error:
            empty = InstructionDraft(text="", signature="", summary="")
            self.post_message(self.Drafted(index, empty, str(error)))
            return
        self.post_message(self.Drafted(index, draft))

    @on(Drafted)
    def _drafted(self, message: Drafted) -> None:
        if message.index != self.current:
            return  # the annotator moved on to another goal meanwhile
        if message.error:
            self.set_status(message.error, error=True)
        goal = self.spec.goals[message.index]
        draft = message.draft
        if not goal.instruction:
            goal.instruction = draft.text
            self.changed()
        self.query_one("#signature", Static).update(draft.signature)
        self._template = draft.text
        editor = self.query_one("#instruction", TextArea)
        editor.load_text(goal.instruction)
        # What is typed goes after the text, never before a template's first word.
        editor.move_cursor(editor.document.end)
        self._show_template_note()
        category = self.query_one("#category", Select)
        category.value = goal.category if goal.category in CATEGORIES else Select.NULL
        self._candidates = list(dict.fromkeys(draft.retrieval_candidates + goal.retrieval_context))
        self._fill_retrieval()

    def _fill_retrieval(self) -> None:
        goal = self.spec.goals[self.current]
        selection = self.query_one("#retrieval", SelectionList)
        selection.clear_options()
        selection.add_options(
            [(path, path, path in goal.retrieval_context) for path in self._candidates]
        )

    @on(Button.Pressed, "#retrieval-add")
    def _add_pressed(self) -> None:
        if not self.spec.goals:
            return
        picker = FilePicker(Path(self.spec.repo_path), exclude=set(self._candidates))
        self.app.push_screen(picker, self._picked)

    def _picked(self, path: str | None) -> None:
        if not path or not self.spec.goals:
            return
        goal = self.spec.goals[self.current]
        self._candidates.append(path)
        goal.retrieval_context = [*goal.retrieval_context, path]
        self.changed()
        self._fill_retrieval()
        self.set_status(f"added {path} to the retrieval context")

    @on(Button.Pressed, "#retrieval-remove")
    def _remove_pressed(self) -> None:
        selection = self.query_one("#retrieval", SelectionList)
        if not self.spec.goals or selection.highlighted is None:
            return
        path = str(selection.get_option_at_index(selection.highlighted).value)
        goal = self.spec.goals[self.current]
        self._candidates = [c for c in self._candidates if c != path]
        goal.retrieval_context = [c for c in goal.retrieval_context if c != path]
        self.changed()
        self._fill_retrieval()
        self.set_status(f"removed {path} from the retrieval context")

    @on(Select.Changed, "#goal-select")
    def _goal_changed(self, event: Select.Changed) -> None:
        if isinstance(event.value, int) and event.value != self.current:
            self._load(event.value)

    @on(TextArea.Changed, "#instruction")
    def _instruction_changed(self, event: TextArea.Changed) -> None:
        if self.spec.goals and event.text_area.text != self.spec.goals[self.current].instruction:
            self.spec.goals[self.current].instruction = event.text_area.text
            self.changed()
        self._show_template_note()

    def _show_template_note(self) -> None:
        """Say so while the instruction is still the template's text, word for word."""
        note = self.query_one("#template-note", Static)
        unedited = bool(self.spec.goals) and (
            self.spec.goals[self.current].instruction.strip() == self._template.strip() != ""
        )
        note.display = unedited
        note.update(
            "✎ This is a template, not yet an instruction: say what the function computes, "
            "from which inputs, and what it returns."
        )

    @on(Select.Changed, "#category")
    def _category_changed(self, event: Select.Changed) -> None:
        if self.spec.goals and isinstance(event.value, str):
            self.spec.goals[self.current].category = event.value
            self.changed()

    @on(SelectionList.SelectedChanged, "#retrieval")
    def _retrieval_changed(self, event: SelectionList.SelectedChanged[str]) -> None:
        if self.spec.goals:
            self.spec.goals[self.current].retrieval_context = list(event.selection_list.selected)
            self.changed()

    def can_leave(self) -> str | None:
        for goal in self.spec.goals:
            if not goal.instruction.strip():
                return f"Write the instruction of {goal.goal_function}."
            if goal.category not in CATEGORIES:
                return f"Choose the category of {goal.goal_function}."
        return None
