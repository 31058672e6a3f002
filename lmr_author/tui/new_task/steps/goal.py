"""Step 3: pick the goal function(s) from a file tree and a fuzzy-searchable list.

The list comes from the repository index (`lmr_author.cst.repository`), filled file by file in
a worker so that it appears at once and grows, even on very large repositories.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import ClassVar

from rich.syntax import Syntax
from rich.table import Table
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.events import Key
from textual.fuzzy import Matcher
from textual.message import Message
from textual.widgets import DirectoryTree, Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from lmr_author.authoring.preview import FunctionExcerpt, function_excerpt
from lmr_author.authoring.spec import GoalSpec
from lmr_author.authoring.suggest import GoalSuggestion
from lmr_author.cst.index import FunctionInfo
from lmr_author.tui.new_task.steps._lists import WrappedOptionList
from lmr_author.tui.new_task.steps._wrap import BoundaryWrapped
from lmr_author.tui.new_task.steps.base import WIDE, StepScreen
from lmr_author.util.errors import UserError

_MAX_SHOWN = 500  # options rendered at once; the search narrows the rest


#: Suggestions shown at once: five fit at 80×24 with the function list.
_SHOWN = 5
#: Further candidates kept to take the place of the goals picked.
_SPARE = 10


def _is_overload(decorator: str) -> bool:
    """``@overload`` or ``@typing.overload`` (a decorator as the index writes it)."""
    return decorator.rsplit(".", 1)[-1] == "overload"


def _named(info: FunctionInfo, query: str) -> bool:
    """Whether ``query`` is the function's name or qualified name, exactly."""
    return bool(query) and query in (info.name, info.qualname)


def _function_row(chosen: bool, name: str, where: str, width: int) -> Table:
    """A row of the function list: ✓ when it is a goal, the name, where it is."""
    row = Table.grid(padding=(0, 1), expand=True)
    row.add_column(width=1, no_wrap=True)
    row.add_column(width=width, overflow="fold")
    row.add_column(ratio=1, overflow="fold")
    # Each wraps at its own column's width, at a "." or "/" or "_" (never mid-name when
    # there is such a place): "AdamWScheduleFreeClosure." then "step".
    row.add_row(
        "✓" if chosen else " ", BoundaryWrapped(name, "bold"), BoundaryWrapped(where, "dim")
    )
    return row


class PythonTree(DirectoryTree):
    """A directory tree that shows folders and Python files only."""

    def filter_paths(self, paths: Iterable[Path]) -> Iterable[Path]:
        return [
            p for p in paths if not p.name.startswith(".") and (p.is_dir() or p.suffix == ".py")
        ]


class GoalStep(StepScreen):
    STEP_NUMBER = 3
    HELP: ClassVar[str] = (
        "Type to search the functions (typing in a list goes on with it); ↓ goes into the "
        "list, ↑ into the suggestions; Enter adds or removes a goal function. A file picked "
        "in the tree lists only its own."
    )

    class Excerpted(Message):
        """The highlighted function's source, read off disk for the preview."""

        def __init__(self, excerpt: FunctionExcerpt) -> None:
            super().__init__()
            self.excerpt = excerpt

    class Indexed(Message):
        """A batch of functions from the repository index (``done`` with the last one)."""

        def __init__(
            self, batch: list[tuple[str, FunctionInfo]], *, done: bool = False, error: str = ""
        ) -> None:
            super().__init__()
            self.batch = batch
            self.done = done
            self.error = error

    def __init__(self) -> None:
        super().__init__()
        self.functions: list[tuple[str, FunctionInfo]] = []
        self.suggestions: list[GoalSuggestion] = []
        self.file_filter = ""

    def compose_step(self) -> ComposeResult:
        # Suggestions first: on arrival, at 80×24, the paper's candidates are on screen.
        yield Label(
            "Suggested by the paper (Enter in the empty search adds the highlighted one; "
            "the choice is yours)",
            id="suggested",
        )
        yield WrappedOptionList(id="suggestions")
        # Why the highlighted suggestion, whole (wrapped): the list keeps one row each.
        yield Static("", id="suggestion-why", markup=False)
        with Horizontal(id="goal-panes"):
            with Vertical(id="goal-list"):
                # No select-all on focus: a key typed in a list below goes on with the search.
                yield Input(
                    placeholder="search functions (fuzzy)…", id="fn-search", select_on_focus=False
                )
                yield WrappedOptionList(id="functions")
                yield Static("", id="fn-empty", markup=False)
                yield Static(self._chosen_text(), id="chosen", markup=False)
            yield PythonTree(self.spec.repo_path or ".", id="tree")
            with VerticalScroll(id="source-pane"):
                yield Static("", id="source-preview")

    def on_mount(self) -> None:
        self.set_status("indexing…")
        self._index(Path(self.spec.repo_path))
        self.query_one("#fn-search", Input).focus()
        self.query_one("#suggestions", OptionList).display = False
        self.query_one("#suggested", Label).display = False
        self.query_one("#suggestion-why", Static).display = False
        self.paper_loaded()

    def paper_loaded(self) -> None:
        if self.authoring.paper_pages:
            self._suggest(Path(self.spec.repo_path), dict(self.authoring.paper_pages))

    class Suggested(Message):
        """The repository's functions ranked against the paper, each with its why."""

        def __init__(self, suggestions: list[GoalSuggestion], *, marked: bool = False) -> None:
            super().__init__()
            self.suggestions = suggestions
            self.marked = marked  # the same suggestions, now with their copies said

    @work(thread=True, exclusive=True, group="suggest", exit_on_error=False)
    def _suggest(self, repo: Path, pages: dict[str, str]) -> None:
        from lmr_author.authoring.suggest import mark_copies, suggest_goals

        try:
            # More than are shown: each goal picked leaves the list and the next comes up.
            suggestions = suggest_goals(repo, pages, limit=_SHOWN + _SPARE, copies=False)
        except (OSError, UserError):
            suggestions = []  # suggestions are a help, never a blocker
        self.post_message(self.Suggested(suggestions))
        if suggestions:  # the copies take another look at the repository: shown after
            try:
                marked = mark_copies(repo, suggestions)
            except (OSError, UserError):
                return
            self.post_message(self.Suggested(marked, marked=True))

    class GoalsChanged(Message):
        """A goal was picked or dropped: the suggestions show the ones not picked."""

    @on(Suggested)
    def _suggested(self, message: Suggested) -> None:
        self.suggestions = message.suggestions
        # What Enter in an empty search adds, shown; the copies' notes keep the highlight.
        self._show_suggestions(highlight=None if message.marked else 0)

    @on(GoalsChanged)
    def _goals_changed(self) -> None:
        self._show_suggestions()

    def _show_suggestions(self, highlight: int | None = None) -> None:
        """The best suggestions not picked yet; the highlight stays where it was, so
        Enter after Enter picks the next candidate."""
        listing = self.query_one("#suggestions", OptionList)
        position = listing.highlighted if highlight is None else highlight
        chosen = {(g.goal_file, g.class_name, g.goal_function) for g in self.spec.goals}
        shown = [
            (index, suggestion)
            for index, suggestion in enumerate(self.suggestions)
            if (suggestion.goal_file, suggestion.class_name, suggestion.goal_function) not in chosen
        ][:_SHOWN]
        listing.clear_options()
        for index, suggestion in shown:
            owner = f"{suggestion.class_name}." if suggestion.class_name else ""
            name = f"{owner}{suggestion.goal_function}"
            # A row each (five fit at 80×24 with the list); why, below the list. A copy
            # elsewhere stays readable if this one is the goal: said in its row.
            note = suggestion.copy_note()
            prompt = Content.assemble(
                (name, "bold"),
                f"  {suggestion.goal_file}:{suggestion.line}",
                (f"  ⚠ {note}" if note else "", "bold $warning"),
            )
            listing.add_option(Option(prompt, id=str(index)))
        listing.display = bool(shown)
        if shown:
            listing.highlighted = min(position or 0, len(shown) - 1)
        self.query_one("#suggested", Label).display = bool(shown)
        self._show_why()

    @on(OptionList.OptionHighlighted, "#suggestions")
    def _show_why(self) -> None:
        """Why the highlighted suggestion: the words it shares with the paper, where."""
        listing = self.query_one("#suggestions", OptionList)
        why = self.query_one("#suggestion-why", Static)
        position = listing.highlighted
        if not listing.display or position is None or position >= listing.option_count:
            why.display = False
            return
        suggestion = self.suggestions[int(listing.get_option_at_index(position).id or 0)]
        why.update(f"why: {suggestion.why()}")
        why.display = True

    @on(OptionList.OptionSelected, "#suggestions")
    def _suggestion_picked(self, event: OptionList.OptionSelected) -> None:
        suggestion = self.suggestions[int(event.option.id or 0)]
        self._toggle_goal(
            suggestion.goal_file, suggestion.class_name, suggestion.goal_function, suggestion.line
        )

    @work(thread=True, exclusive=True, exit_on_error=False)
    def _index(self, root: Path) -> None:
        from lmr_author.cst.repository import iter_repository_functions

        batch: list[tuple[str, FunctionInfo]] = []
        try:
            for relative, functions in iter_repository_functions(root):
                batch.extend((relative, info) for info in functions)
                if len(batch) >= 2000:
                    self.post_message(self.Indexed(batch))
                    batch = []
        except (OSError, UserError) as error:
            self.post_message(self.Indexed(batch, done=True, error=f"indexing failed: {error}"))
            return
        self.post_message(self.Indexed(batch, done=True))

    @on(Indexed)
    def _add(self, message: Indexed) -> None:
        self.functions.extend(message.batch)
        self._refresh_list()
        if message.error:
            self.set_status(message.error, error=True)
            return
        state = "" if message.done else " (indexing…)"
        self.set_status(f"{len(self.functions)} functions{state}")

    def _key(self, relative: str, info: FunctionInfo) -> str:
        return f"{relative}::{info.qualname}::{info.def_line}"

    def _refresh_list(self, *, top: bool = False) -> None:
        query = self.query_one("#fn-search", Input).value.strip()
        matcher = Matcher(query) if query else None
        scored: list[tuple[float, str, FunctionInfo]] = []
        for relative, info in self.functions:
            if self.file_filter and relative != self.file_filter:
                continue
            label = f"{info.qualname}  {relative}:{info.def_line}"
            score = matcher.match(label) if matcher else 1.0
            if score > 0:
                scored.append((score, relative, info))
        if matcher:
            # A function named exactly as typed comes first, then the fuzzy order.
            scored.sort(key=lambda item: (not _named(item[2], query), -item[0]))
        chosen = {(g.goal_file, g.class_name, g.goal_function) for g in self.spec.goals}
        shown = scored[:_MAX_SHOWN]
        # Two aligned columns, the name then where it is; a long one wraps inside its
        # column, so a row never runs into the next one's place.
        # The list's width by the layout (new_task.tcss), known before it is laid out:
        # the screen's width, less the tree and the source beside it on a wide screen.
        screen = self.app.size.width
        room = screen - 8 if screen < WIDE else (screen - 30) // 2 - 6
        longest = max((len(info.qualname) for _, _, info in shown), default=8)
        located = max((len(f"{r}:{i.def_line}") for _, r, i in shown), default=8)
        width = min(longest, max(room - located - 4, room * 2 // 5))
        options = [
            Option(
                _function_row(
                    (relative, info.class_name, info.name) in chosen,
                    info.qualname,
                    f"{relative}:{info.def_line}",
                    width,
                ),
                id=self._key(relative, info),
            )
            for _, relative, info in shown
        ]
        option_list = self.query_one("#functions", OptionList)
        highlighted = option_list.highlighted
        option_list.clear_options()
        option_list.add_options(options)
        if options and query:
            # A new query highlights its best match; a refresh keeps the highlight.
            option_list.highlighted = 0 if top else min(highlighted or 0, len(options) - 1)
        elif options and highlighted is not None and not top:
            option_list.highlighted = min(highlighted, len(options) - 1)
        else:
            # No query: nothing is highlighted until ↑/↓ says so. The first function of
            # the first file is nobody's choice, and Enter must not add it.
            option_list.highlighted = None
        empty = self.query_one("#fn-empty", Static)
        empty.display = not options and bool(self.functions)
        where = f" in {self.file_filter}" if self.file_filter else ""
        empty.update(f"no function matches '{query}'{where}" if query else f"no function{where}")

    def _lookup(self, option_id: str | None) -> tuple[str, FunctionInfo] | None:
        for relative, info in self.functions:
            if self._key(relative, info) == option_id:
                return relative, info
        return None

    @on(Input.Changed, "#fn-search")
    def _search(self) -> None:
        self._refresh_list(top=True)

    @on(Input.Submitted, "#fn-search")
    def _enter_in_search(self, event: Input.Submitted) -> None:
        """One Enter in the search box adds (or removes) the function named exactly as
        typed when there is one such, else the highlighted one."""
        query = event.value.strip()
        exact = [
            (relative, info)
            for relative, info in self.functions
            if _named(info, query) and (not self.file_filter or relative == self.file_filter)
        ]
        if len(exact) == 1:
            relative, info = exact[0]
            self._toggle_goal(relative, info.class_name, info.name, info.def_line)
            return
        option_list = self.query_one("#functions", OptionList)
        if option_list.highlighted is not None:
            option_list.action_select()
            return
        suggestions = self.query_one("#suggestions", OptionList)
        if suggestions.display and suggestions.option_count:
            # An empty search: Enter takes the highlighted suggestion, as the label says.
            suggestions.highlighted = suggestions.highlighted or 0
            suggestions.action_select()
            return
        self.set_status("Type part of a name, or ↓ to highlight a function, then Enter.")

    def on_key(self, event: Key) -> None:
        """The search box, the suggestions above it and the functions below are one
        column: ↓ from the search goes into the list below, ↑ into the suggestions above,
        and back again past a list's end; typing in a list goes on with the search."""
        search = self.query_one("#fn-search", Input)
        functions = self.query_one("#functions", OptionList)
        suggestions = self.query_one("#suggestions", OptionList)
        focused = self.focused
        target: OptionList | Input | None = None
        if focused is search and event.key == "down" and functions.option_count:
            target = functions
            if functions.highlighted is None:
                functions.highlighted = 0
        elif focused is search and event.key == "up" and suggestions.display:
            target = suggestions
        elif self._leaves_list(event.key, functions, suggestions):
            target = search
        elif focused in (functions, suggestions) and event.is_printable and event.character:
            search.focus()
            search.insert_text_at_cursor(event.character)
            event.stop()
            return
        if target is not None:
            target.focus()
            event.stop()
            event.prevent_default()

    def _leaves_list(self, key: str, functions: OptionList, suggestions: OptionList) -> bool:
        """↑ at the top of the functions, or ↓ at the bottom of the suggestions: back to
        the search box between them."""
        if self.focused is functions:
            return key == "up" and not functions.highlighted
        last = suggestions.option_count - 1
        return (
            self.focused is suggestions
            and key == "down"
            and suggestions.highlighted
            in (
                None,
                last,
            )
        )

    @on(DirectoryTree.FileSelected)
    def _file_selected(self, event: DirectoryTree.FileSelected) -> None:
        relative = event.path.relative_to(Path(self.spec.repo_path)).as_posix()
        self.file_filter = "" if self.file_filter == relative else relative
        self._refresh_list()

    @on(OptionList.OptionHighlighted, "#functions")
    def _preview(self, event: OptionList.OptionHighlighted) -> None:
        found = self._lookup(event.option.id)
        if found is None:
            return
        relative, info = found
        self._excerpt(Path(self.spec.repo_path) / relative, info.start_line, info.end_line)

    @work(thread=True, exclusive=True, group="excerpt", exit_on_error=False)
    def _excerpt(self, path: Path, start_line: int, end_line: int) -> None:
        excerpt = function_excerpt(path, start_line, end_line)
        if excerpt is not None:
            self.post_message(self.Excerpted(excerpt))

    @on(Excerpted)
    def _show_excerpt(self, message: Excerpted) -> None:
        excerpt = message.excerpt
        syntax = Syntax(
            excerpt.text,
            "python",
            line_numbers=True,
            start_line=excerpt.first_line,
            highlight_lines=set(excerpt.highlighted),
            theme="ansi_dark" if self.app.current_theme.dark else "ansi_light",
            word_wrap=True,  # a long line wraps under its number, never cut at the edge
        )
        self.query_one("#source-preview", Static).update(syntax)

    @on(OptionList.OptionSelected, "#functions")
    def _toggle(self, event: OptionList.OptionSelected) -> None:
        found = self._lookup(event.option.id)
        if found is not None:
            relative, info = found
            self._toggle_goal(relative, info.class_name, info.name, info.def_line)

    def _toggle_goal(
        self, relative: str, class_name: str, name: str, line: int | None = None
    ) -> None:
        for goal in self.spec.goals:
            if (goal.goal_file, goal.class_name, goal.goal_function) == (
                relative,
                class_name,
                name,
            ):
                self.spec.goals.remove(goal)
                break
        else:
            self.spec.goals.append(
                GoalSpec(
                    goal_file=relative,
                    goal_function=name,
                    class_name=class_name,
                    line=self._line_if_ambiguous(relative, class_name, name, line),
                )
            )
        self.changed()
        self.post_message(self.GoalsChanged())  # called from a worker thread too
        self.query_one("#chosen", Static).update(self._chosen_text())
        self._refresh_list()
        # Said in the status line too: at 80×24 the chosen list may be below the fold.
        picked = any(g.goal_function == name and g.goal_file == relative for g in self.spec.goals)
        owner = f"{class_name}." if class_name else ""
        self.set_status(f"{'added' if picked else 'removed'} {owner}{name} ({relative})")

    def _line_if_ambiguous(
        self, relative: str, class_name: str, name: str, line: int | None
    ) -> int | None:
        """The line that picks the definition meant, when the name alone does not (an
        ``@overload`` stub before its implementation, a redefinition); else None."""
        from lmr_author.cst.index import list_functions
        from lmr_author.cst.locate import goal_candidates

        infos = [info for file, info in self.functions if file == relative]
        if not infos:  # picked before the index reached the file
            try:
                infos = list_functions((Path(self.spec.repo_path) / relative).read_bytes())
            except (OSError, SyntaxError, ValueError):
                return line
        found = goal_candidates(infos, name, class_name)
        if len(found) <= 1:
            return None
        # A stub is no goal (it has no body to mask): its implementation is meant.
        implemented = [i for i in found if not any(_is_overload(d) for d in i.decorators)]
        picked = [i for i in implemented if line is not None and i.start_line <= line <= i.end_line]
        return (picked or implemented or found)[-1].def_line

    def _chosen_text(self) -> str:
        if not self.spec.goals:
            return "Goal functions: none yet"
        names = ", ".join(
            f"{g.class_name + '.' if g.class_name else ''}{g.goal_function} ({g.goal_file})"
            for g in self.spec.goals
        )
        return f"Goal functions: {names}"

    def can_leave(self) -> str | None:
        if not self.spec.goals:
            return "Pick at least one goal function (Enter on a function)."
        return None
