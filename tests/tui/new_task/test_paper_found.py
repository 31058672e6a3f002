"""The Paper step at 80×24 finds the repository's paper by its content, whatever its
name: loaded on arrival, the others listed to load instead, a hint when there is none."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import OptionList, Static, TextArea

from lmr_author.tui.new_task.app import NewTaskApp
from tests.authoring.test_paper_locate import CONVERTED, MAIN
from tests.tui.new_task.conftest import draft_app, settle
from tests.tui.new_task.test_new_user_findings import _screen_text

SMALL = (80, 24)
TITLE = "GPS: A PROBABILISTIC SIMILARITY WITH GUMBEL PRIORS FOR SET-TO-SET MATCHING"


def _app(repo: Path, name: str) -> NewTaskApp:
    return draft_app(repo, "paper", name)


async def test_a_markdown_paper_named_otherwise_is_loaded_on_arrival(toy_repo: Path) -> None:
    (toy_repo / "paper2code_paper.md").write_text(CONVERTED)
    (toy_repo / "README.md").write_text("# toy\n\n## Installation\n\n## Usage\n")
    app = _app(toy_repo, "found-md")
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await settle(pilot)
        assert app.spec.paper_pdf == str(toy_repo / "paper2code_paper.md")
        assert app.spec.paper_name == TITLE
        assert "Set-to-set matching" in " ".join(app.paper_pages.values())
        status = _screen_text(app, "status")
        assert "loaded paper2code_paper.md (Markdown, " in status, status
        # The whole title is on screen (it wraps), not a window of it.
        assert TITLE in _screen_text(app, "paper-name")
        assert not app.screen.query_one("#found", OptionList).display  # one paper: no list


async def test_several_papers_are_listed_and_enter_loads_another(toy_repo: Path) -> None:
    (toy_repo / "paper2code_paper.md").write_text(CONVERTED)
    (toy_repo / "paper").mkdir()
    (toy_repo / "paper" / "main.tex").write_text(
        MAIN.replace("\\title{T}", "\\title{Margins for Toys}").replace(
            "\\begin{document}", "\\begin{document}\n\\begin{abstract}x\\end{abstract}"
        )
    )
    (toy_repo / "paper" / "sections").mkdir()
    (toy_repo / "paper" / "sections" / "intro.tex").write_text("\\section{Intro}\nA margin loss.\n")
    app = _app(toy_repo, "found-several")
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await settle(pilot)
        assert app.spec.paper_pdf == str(toy_repo / "paper" / "main.tex")  # the best: LaTeX
        assert app.spec.paper_name == "Margins for Toys"
        listing = app.screen.query_one("#found", OptionList)
        assert listing.display and listing.option_count == 2
        screen = _screen_text(app)
        assert "Papers in the repository (↑/↓, Enter loads one)" in screen
        assert "paper/main.tex (LaTeX: " in screen and "paper2code_paper.md (Markdown: " in screen
        assert "1 other paper(s) listed above" in _screen_text(app, "status")
        # As the label says: from the field above, Tab reaches the list; ↓ and Enter load.
        await pilot.press("tab", "tab")
        assert app.screen.focused is listing
        await pilot.press("down", "enter")
        await settle(pilot)
        assert app.spec.paper_pdf == str(toy_repo / "paper2code_paper.md")
        assert app.spec.paper_name == TITLE  # the title it filled in follows the paper
        assert "Set-to-set matching" in " ".join(app.paper_pages.values())


async def test_an_edited_title_stays_when_another_paper_is_loaded(toy_repo: Path) -> None:
    (toy_repo / "paper2code_paper.md").write_text(CONVERTED)
    (toy_repo / "paper.tex").write_text(MAIN)
    app = _app(toy_repo, "found-title")
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await settle(pilot)
        title = app.screen.query_one("#paper-name", TextArea)
        title.load_text("My Own Title")
        await pilot.pause()
        app.screen.query_one("#found", OptionList).highlighted = 1
        app.screen.query_one("#found", OptionList).action_select()
        await settle(pilot)
        assert app.spec.paper_pdf == str(toy_repo / "paper2code_paper.md")
        assert app.spec.paper_name == "My Own Title"


async def test_no_paper_in_the_repository_says_where_it_looked(toy_repo: Path) -> None:
    app = _app(toy_repo, "found-none")
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await settle(pilot)
        assert app.spec.paper_pdf == ""
        assert "no paper found in the repository" in _screen_text(app, "status")
        preview = str(app.screen.query_one("#paper-text", Static).visual)
        assert "No paper found in the repository: looked at the top" in preview
        assert "'Give it later'" in preview


async def test_the_title_field_stays_one_line_of_text(toy_repo: Path) -> None:
    (toy_repo / "paper.tex").write_text(MAIN)
    app = _app(toy_repo, "found-oneline")
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await settle(pilot)
        title = app.screen.query_one("#paper-name", TextArea)
        title.focus()
        title.load_text("")
        await pilot.press(*"Two", "enter")
        assert app.screen.focused is not title  # Enter moves on, as Tab
        title.focus()
        title.move_cursor(title.document.end)
        title.insert(" Lines\npasted")
        await pilot.pause()
        assert app.spec.paper_name == "Two Lines pasted"
