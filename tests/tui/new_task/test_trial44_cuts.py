"""Found in the timed trial of issue 44 at 80×24, on a torch optimizer with copies beside
it (ResearchCodeBench's schedule_free): names broken mid-token, a list's rows under its
scrollbar, a mask style, the copies, a signature and the proposals' "why" cut; ctrl+a
missing from the Tests step's footer; no key for the mutation test; Save silent on the
mutation score. The checks here read what the screen draws, for every list, table and
toggle of every step (not only the rows the trial met)."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

from textual.command import CommandPalette
from textual.widgets import DataTable, Footer, OptionList, RadioButton, Static

from lmr_author.authoring.spec import GoalSpec
from lmr_author.tui.new_task.app import NewTaskApp
from lmr_author.tui.new_task.steps import STEPS
from tests.tui.new_task.conftest import draft_app, settle

SMALL = (80, 24)
GOAL = GoalSpec(
    "schedulefree/adamw_schedulefree.py",
    "step",
    class_name="AdamWScheduleFree",
    instruction="Implement it.",
    driver="pass\n",
)


def _app(repo: Path, step: str, name: str, **fields: object) -> NewTaskApp:
    fields.setdefault("folder_name", "09-ScheduleFree")
    fields.setdefault("goals", [GoalSpec(**GOAL.__dict__)])
    return draft_app(repo, step, name, **fields)


def _lines(app: NewTaskApp) -> list[str]:
    return [strip.text for strip in app.screen._compositor.render_strips()]


def _squashed(text: str) -> str:
    return "".join(text.split())


def _drawn(app: NewTaskApp, region: object) -> str:
    from textual.geometry import Region

    assert isinstance(region, Region)
    lines = _lines(app)[region.y : region.bottom]
    return _squashed("".join(line[region.x : region.right] for line in lines))


async def _cut_rows(app: NewTaskApp, pilot: object) -> list[str]:
    """The rows of every list, table and toggle shown that the screen does not draw whole
    inside its widget's text area (cut with "…", at the edge, or under a scrollbar)."""
    screen = app.screen
    cut: list[str] = []

    def shown(widget: object) -> bool:
        return all(n.display for n in widget.ancestors_with_self if n is not screen)  # type: ignore[attr-defined]

    for listing in screen.query(OptionList):
        if not shown(listing) or not listing.option_count:
            continue
        listing.scroll_visible(animate=False, immediate=True)
        await pilot.pause()  # type: ignore[attr-defined]
        for index in range(listing.option_count):
            option = listing.get_option_at_index(index)
            prompt = option.prompt
            text = prompt.plain if hasattr(prompt, "plain") else str(prompt)
            if not isinstance(getattr(prompt, "plain", None), str):
                continue  # a Rich table (the function rows): checked on their own
            line = listing._index_to_line[index]
            listing.scroll_to(y=line, animate=False, immediate=True)
            await pilot.pause()  # type: ignore[attr-defined]
            # Inside the list, left of its scrollbar: what is drawn under it is lost.
            drawn = _drawn(app, listing.scrollable_content_region)
            if _squashed(text) not in drawn:
                cut.append(f"#{listing.id} row {index}: {text!r}")
    for table in screen.query(DataTable):
        if not shown(table):
            continue
        table.scroll_visible(animate=False, immediate=True)
        await pilot.pause()  # type: ignore[attr-defined]
        drawn = _drawn(app, table.scrollable_content_region)
        for row in range(table.row_count):
            for cell in table.get_row_at(row):
                if _squashed(str(cell)) not in drawn:
                    cut.append(f"#{table.id}: {str(cell)!r}")
    for button in screen.query(RadioButton):
        button.scroll_visible(animate=False, immediate=True)
        await pilot.pause()  # type: ignore[attr-defined]
        if shown(button) and _squashed(button.label.plain) not in _drawn(app, button.region):
            cut.append(f"radio: {button.label.plain!r}")
    return cut


async def test_no_row_of_a_list_table_or_toggle_is_cut_at_80x24(
    schedule_free_repo: Path, schedule_free_paper: Path
) -> None:
    app = _app(schedule_free_repo, "goal", "rows-uncut", paper_pdf=str(schedule_free_paper))
    cut: list[str] = []
    async with app.run_test(size=SMALL) as pilot:
        for index, (name, _) in enumerate(STEPS):
            if name in ("check", "save"):
                continue  # no lists there but the survivors (test_mutants_tui)
            app.go_to(index)
            await settle(pilot)
            await settle(pilot)
            cut += [f"{name}: {row}" for row in await _cut_rows(app, pilot)]
    assert cut == [], "\n".join(cut)


def _name_pieces(app: NewTaskApp) -> list[str]:
    """The function list's name column as drawn, a piece a screen line."""
    region = app.screen.query_one("#functions").content_region
    rows = [line[region.x : region.right] for line in _lines(app)[region.y : region.bottom]]
    first = next(row for row in rows if "AdamW" in row)
    start, end = first.index("AdamW"), first.index("schedulefree/")
    return [row[start:end].strip() for row in rows if row[start:end].strip()]


def _mid_token(before: str, after: str) -> bool:
    """Whether a line break between ``before`` and ``after`` cuts a token where it has no
    break point (a ".", "/", "_" or a capital after a small letter)."""
    if before[-1] in "./_:, " or after[0] in "_":
        return False
    return not (before[-1].islower() and after[0].isupper())


async def test_function_rows_break_at_a_dot_or_an_underscore_never_mid_name(
    schedule_free_repo: Path,
) -> None:
    app = _app(schedule_free_repo, "goal", "rows-break", goals=[])
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        pieces = _name_pieces(app)
        names = []
        for piece in pieces:  # a name starts "AdamW…"; the rest continue the one above
            if piece.startswith("AdamW") or not names:
                names.append([piece])
            else:
                names[-1].append(piece)
        wrapped = [parts for parts in names if len(parts) > 1]
        assert wrapped, pieces  # the fixture's long names wrap at 80 columns
        for parts in wrapped:
            for before, after in itertools.pairwise(parts):
                assert not _mid_token(before, after), parts
        # The places, too: "schedulefree/" then "adamw_schedulefree_closure.py:84".
        screen = " ".join(_lines(app))
        assert "adamw_schedulefree_closure.p " not in screen


async def test_a_signature_s_brackets_are_drawn(schedule_free_repo: Path) -> None:
    app = _app(schedule_free_repo, "instruction", "signature-whole")
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        signature = "def step(self, closure: Optional[Callable[[], float]]=None) -> Optional[float]"
        assert _squashed(signature) in _drawn(app, app.screen.query_one("#signature").region)


def _footer_keys(app: NewTaskApp) -> list[str]:
    footer = app.screen.query_one(Footer)
    return [
        f"{key.key_display} {key.description}"
        for key in footer.query("FooterKey")
        if key.region.right <= footer.region.right
    ]


def _footer_cut(app: NewTaskApp) -> list[str]:
    footer = app.screen.query_one(Footer)
    return [
        str(key.description)
        for key in footer.query("FooterKey")
        if key.region.right > footer.region.right
    ]


async def test_every_editor_s_footer_lists_ctrl_a_and_every_key_fits(
    schedule_free_repo: Path,
) -> None:
    app = _app(schedule_free_repo, "tests", "footers")
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        for editor in ("#driver",):
            app.screen.query_one(editor).focus()
            await pilot.pause()
            assert any("Select all" in key for key in _footer_keys(app)), _footer_keys(app)
        cut = []
        for index, (name, _) in enumerate(STEPS):
            app.go_to(index)
            await settle(pilot)
            for widget in app.screen.focus_chain:
                widget.focus()
                await pilot.pause()
                await pilot.pause()  # the footer recomposed for the focused widget
                cut += [f"{name} #{widget.id}: {key}" for key in _footer_cut(app)]
        assert cut == [], cut


async def test_the_mutation_test_has_a_key_in_the_footer_and_a_palette_command(
    schedule_free_repo: Path,
) -> None:
    from lmr_author.tui.new_task.steps.check import CheckStep

    app = _app(schedule_free_repo, "check", "mutation-key")
    started: list[str] = []
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, CheckStep)
        screen._mutate = lambda spec: started.append(spec.folder_name)  # type: ignore[method-assign]
        assert "^g Mutation test" in _footer_keys(app)
        await pilot.press("ctrl+g")
        await pilot.pause()
        assert started == ["09-ScheduleFree"]
        # While it runs it is neither in the footer nor in the palette.
        assert not any("Mutation" in key for key in _footer_keys(app))
        assert not any(c.title == "Mutation test" for c in app.get_system_commands(screen))
        screen.post_message(CheckStep.Mutated([], "stopped"))
        await pilot.pause()
        assert "^g Mutation test" in _footer_keys(app)
        await pilot.press("ctrl+p")
        await pilot.pause()
        assert isinstance(app.screen, CommandPalette)
        await pilot.press(*"mut")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await settle(pilot)
        assert started == ["09-ScheduleFree", "09-ScheduleFree"]


def _save_state(app: NewTaskApp) -> str:
    return str(app.screen.query_one("#check-state", Static).visual)


async def test_save_says_the_mutation_score_of_this_content_or_that_it_has_not_run(
    schedule_free_repo: Path, monkeypatch: object
) -> None:
    from lmr_author.authoring import save as authoring_save
    from lmr_author.authoring.save import SaveCheck
    from lmr_author.mutation.mutants import mutants_of
    from lmr_author.mutation.score import MutationReport

    check = SaveCheck(key="this-content", verified=True, seconds=30)
    monkeypatch.setattr(authoring_save, "last_check", lambda spec: check)  # type: ignore[attr-defined]
    source = (schedule_free_repo / GOAL.goal_file).read_bytes()
    survivors = mutants_of(source, "step", "AdamWScheduleFree")[:3]
    app = _app(schedule_free_repo, "save", "save-score")
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        state = _save_state(app)
        assert "verified ✓" in state
        assert "Mutation test: not run for this content" in state
        # Measured this session on other content: not this content's score.
        report = MutationReport("09-ScheduleFree", 1, total=10, killed=2, survivors=survivors)
        app.mutation_reports = ("other-content", [report])
        app.go_to(len(STEPS) - 1)
        await settle(pilot)
        assert "not run for this content" in _save_state(app)
        # On this content: killed/counted, the survivors left, the weak tests' warning.
        app.spec.goals[0].equivalent_mutants = [{"mutant": survivors[0].key, "why": "same"}]
        app.mutation_reports = ("this-content", [report])
        app.go_to(len(STEPS) - 1)
        await settle(pilot)
        state = " ".join(_save_state(app).split())
        assert re.search(
            r"Mutation test: ⚠ weak tests: mutants killed 2/9, 7 survivors left, "
            r"1 equivalent apart; fewer than half",
            state,
        ), state
        assert _squashed(state) in _drawn(app, app.screen.query_one("#check-state").region)
