"""Pilot tests of the new-task app at 80×24, as a new annotator meets it: the
dependencies come from the repository's own requirements file whatever its name, the
Goal step's keys do what its help says, the instruction editor has room and ctrl+end
reaches its end, and the function list's rows keep their shape."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from textual.widgets import Button, DataTable, Input, OptionList, Static, TextArea

from lmr_author.authoring.spec import GoalSpec, TaskSpec, draft_path, save_spec
from lmr_author.tui.new_task.app import NewTaskApp
from lmr_author.tui.new_task.steps import STEPS
from tests.tui.new_task.conftest import draft_app, settle
from tests.tui.new_task.test_new_user_findings import _screen_text

SMALL = (80, 24)


def _app(repo: Path, step: str, name: str, **fields: object) -> NewTaskApp:
    fields.setdefault(
        "goals", [GoalSpec("toy/losses.py", "margin_loss", instruction="Implement it.")]
    )
    return draft_app(repo, step, name, **fields)


async def test_dependencies_come_from_a_requirements_file_named_otherwise(
    toy_repo: Path,
) -> None:
    (toy_repo / "toy" / "gps.py").write_text("import torch\n\n\ndef gps(x):\n    return x\n")
    (toy_repo / "paper2code_requirements.txt").write_text("torch >= 2.0\ntyping_extensions\n")
    app = _app(toy_repo, "environment", "env-files", goals=[GoalSpec("toy/gps.py", "gps")])
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        table = app.screen.query_one("#proposals", DataTable)
        # Each cell wrapped at its column's width: the same words over lines.
        rows = [
            [" ".join(str(cell).split()) for cell in table.get_row_at(index)]
            for index in range(table.row_count)
        ]
        assert rows == [
            ["torch>=2.0", "paper2code_requirements.txt line 1; import in toy/gps.py line 1"]
        ]
        assert "torch>=2.0  # paper2code_requirements.txt line 1" in app.spec.requirements
        screen = _screen_text(app)
        assert "Read from the repository: paper2code_requirements.txt" in screen
        status = _screen_text(app, "status")
        assert "versions from paper2code_requirements.txt" in status, status
        assert app.screen.query_one("#requirements", TextArea).text == app.spec.requirements


def _with_paper(repo: Path, paper: Path, step: str, name: str) -> NewTaskApp:
    return _app(repo, step, name, goals=[], paper_pdf=str(paper))


async def test_down_in_the_search_goes_into_the_list_as_the_help_says(
    toy_repo: Path, toy_paper: Path
) -> None:
    app = _with_paper(toy_repo, toy_paper, "goal", "goal-keys")
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await settle(pilot)
        screen = _screen_text(app)
        assert "↓ goes into the list, ↑ into the suggestions" in screen
        search = app.screen.query_one("#fn-search")
        functions = app.screen.query_one("#functions", OptionList)
        suggestions = app.screen.query_one("#suggestions", OptionList)
        assert app.screen.focused is search
        await pilot.press("down")
        assert app.screen.focused is functions and functions.highlighted == 0
        await pilot.press("enter")
        first = functions.get_option_at_index(0).id or ""
        assert [f"{g.goal_file}::{g.goal_function}" for g in app.spec.goals] == [
            "::".join(first.split("::")[:2])
        ]
        await pilot.press("up")  # at the top of the list: back to the search
        assert app.screen.focused is search
        await pilot.press("up")  # above the search: the suggestions
        assert app.screen.focused is suggestions
        await pilot.press(*["down"] * suggestions.option_count)  # past their end: back
        assert app.screen.focused is search
        await pilot.press("down", *"util")  # typing in the list goes on with the search
        assert app.screen.focused is search
        assert app.screen.query_one("#fn-search", Input).value == "util"


async def test_why_a_suggestion_is_whole_on_screen(toy_repo: Path, tmp_path: Path) -> None:
    from lmr_author.authoring.paper_pdf import make_paper_pdf

    passage = (
        "We minimise a logistic loss on the score margin between the chosen and the "
        "rejected responses, scaled by beta, so that a larger margin between the two "
        "scores always lowers the margin loss of the pair."
    )
    paper = tmp_path / "long.pdf"
    make_paper_pdf("Margin Losses", [("Method", passage)], paper)
    app = _with_paper(toy_repo, paper, "goal", "goal-why")
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await settle(pilot)
        why = app.screen.query_one("#suggestion-why", Static)
        assert why.display
        shown = _screen_text(app, "suggestion-why")
        text = str(why.visual)
        assert text.startswith("why: matches ") and " …”" in text  # an excerpt, said so
        assert " ".join(text.split()) in shown  # all of it, wrapped over lines


async def test_an_overloaded_goal_is_its_implementation_in_every_step(
    toy_repo: Path, toy_paper: Path
) -> None:
    losses = toy_repo / "toy" / "losses.py"
    source = losses.read_text().replace(
        "def margin_loss(chosen, rejected, beta=0.1):",
        "@typing.overload\n"
        "def margin_loss(chosen: list, rejected: list) -> float: ...\n\n\n"
        "def margin_loss(chosen, rejected, beta=0.1):",
    )
    losses.write_text("import typing\n" + source)
    implementation = 1 + losses.read_text().splitlines().index(
        "def margin_loss(chosen, rejected, beta=0.1):"
    )
    app = _with_paper(toy_repo, toy_paper, "goal", "goal-overload")
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await settle(pilot)
        suggestions = app.screen.query_one("#suggestions", OptionList)
        rows = [
            str(suggestions.get_option_at_index(i).prompt) for i in range(suggestions.option_count)
        ]
        assert [row for row in rows if row.startswith("margin_loss")] == [
            f"margin_loss  toy/losses.py:{implementation}"
        ]
        await pilot.press("enter")  # the top suggestion, as the label says
        [goal] = app.spec.goals
        assert (goal.goal_function, goal.line) == ("margin_loss", implementation)
        await pilot.press("ctrl+n")
        await settle(pilot)
        assert "line(s) masked" in _screen_text(app, "status")  # no "defined 2 times"
        await pilot.press("ctrl+n")
        await settle(pilot)
        signature = str(app.screen.query_one("#signature", Static).visual)
        assert signature == "def margin_loss(chosen, rejected, beta=0.1)"


async def test_a_long_function_row_wraps_inside_its_columns(tmp_path: Path) -> None:
    from tests.support.git_repo import commit_files

    deep = "src/hierarchy_transformers/losses/contrastive/hierarchy_transformer_loss.py"
    repo = tmp_path / "deep"
    commit_files(
        repo,
        {
            deep: "class HierarchyTransformerLoss:\n"
            "    def forward_with_entailment_cone_and_clustering(self, x):\n"
            "        return x\n",
            "a.py": "def f(x):\n    return x\n",
        },
        "deep",
    )
    save_spec(TaskSpec(source=str(repo), repo_path=str(repo), step="goal"), draft_path("rows"))
    app = NewTaskApp(benchmark_dir=Path("bench"), draft_name="rows")
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        region = app.screen.query_one("#functions").content_region
        lines = [s.text for s in app.screen._compositor.render_strips()]
        rows = [line[region.x : region.right] for line in lines[region.y : region.bottom]]
        at = next(i for i, row in enumerate(rows) if "HierarchyTransfo" in row)
        name_column = rows[at].index("HierarchyTransfo")
        where_column = rows[at].index("src/")
        # Its continuation lines start in their own columns, never at the row's edge.
        for continued in rows[at + 1 : at + 3]:
            assert continued[:name_column].strip() == "", rows
            assert continued[name_column:].strip(), rows
        assert "hierarchy_transformer_loss.py:2" in "".join(
            row[where_column:].strip() for row in rows[at : at + 4]
        )


# -- no text of the app cut at 80×24 --------------------------------------------------

DEEP = "src/hierarchy_transformers/losses/contrastive/hierarchy_transformer_loss.py"
DEEP_CODE = '''\
import math


class HierarchyTransformerLoss:
    def forward_with_entailment_cone(self, entity_embeddings, parent_embeddings, margin=0.1):
        """Hyperbolic clustering and centripetal loss of the hierarchy transformer.

        Args:
            entity_embeddings: the entities, (batch, dim).
        """
        total = 0.0
        for e, p in zip(entity_embeddings, parent_embeddings):
            total += math.exp(-margin * (e - p))
        return total / len(entity_embeddings)
'''
LONG_TITLE = (
    "Language Models as Hierarchy Encoders: Hyperbolic Clustering and Centripetal Losses "
    "for Taxonomies"
)


_BORDERS = re.compile(r"[│─╭╮╰╯▔▁▎▊┃━]")


def _squashed(text: str) -> str:
    return "".join(text.split())


def _cut_texts(app: NewTaskApp) -> list[str]:
    """The app's own texts (every Static and Button: labels, choices, messages, diffs) that their
    widget does not draw whole: cut at its edge (with an ellipsis or without) or below its
    height. What a scrolling pane holds beyond the screen is drawn, and read by scrolling;
    the status line may cut a long text when its whole is in the log (ctrl+l, hinted)."""
    from rich.syntax import Syntax
    from textual.content import Content
    from textual.geometry import Region

    screen = app.screen
    cut = []
    for widget in screen.query("Static, Button"):
        shown_chain = all(n.display for n in widget.ancestors_with_self if n is not screen)
        if not shown_chain or widget.id == "step-title":
            continue  # the step title: the paper's whole title is the Paper step's field
        if isinstance(widget, Button):
            text = widget.label.plain
        else:
            visual = widget.visual  # type: ignore[attr-defined]
            renderable = getattr(visual, "_renderable", None)
            if isinstance(renderable, Syntax):  # a diff or code: every line of it
                text = renderable.code
            elif isinstance(visual, Content):
                text = visual.plain
            else:
                continue
        if not text.strip() or not widget.size.area:
            continue
        drawn = "".join(s.text for s in widget.render_lines(Region(0, 0, *widget.outer_size)))
        drawn = _BORDERS.sub("", drawn)  # a bordered widget's edges between its lines
        if all(_squashed(line) in _squashed(drawn) for line in text.splitlines()):
            continue
        if widget.id == "status" and text in "\n".join(screen.output.lines):  # type: ignore[attr-defined]
            assert screen.query_one("#log-hint").display  # the way to the whole text
            continue
        cut.append(f"{type(screen).__name__} #{widget.id}: {text!r} drawn as {drawn!r}")
    for field in screen.query(Input):  # what an empty field asks for, whole
        shown_chain = all(n.display for n in field.ancestors_with_self if n is not screen)
        if shown_chain and not field.value and len(field.placeholder) > field.content_size.width:
            cut.append(f"{type(screen).__name__} #{field.id}: placeholder {field.placeholder!r}")
    return cut


async def test_no_text_of_the_app_is_cut_at_80x24(tmp_path: Path) -> None:
    from lmr_author.authoring.image_build import BuildResult
    from lmr_author.authoring.paper_pdf import make_paper_pdf
    from lmr_author.authoring.record_docker import RecordingResult
    from lmr_author.authoring.save import SaveCheck
    from lmr_author.mutation.mutants import Mutant
    from lmr_author.mutation.score import MutationReport
    from lmr_author.tui.new_task.steps.base import SurvivorHint
    from lmr_author.tui.new_task.steps.check import CheckStep
    from lmr_author.tui.new_task.steps.environment import EnvironmentStep
    from lmr_author.tui.new_task.steps.save import SaveStep, Written
    from lmr_author.tui.new_task.steps.tests import TestsStep
    from tests.support.git_repo import commit_files

    repo = tmp_path / "hierarchy-transformers-with-a-long-name"
    commit_files(repo, {DEEP: DEEP_CODE, "requirements.txt": "numpy>=1.24\n"}, "x")
    paper = tmp_path / "paper.pdf"
    method = "We minimise the hyperbolic clustering loss and the centripetal loss. " * 4
    make_paper_pdf(LONG_TITLE, [("Method", method)], paper)
    goal = GoalSpec(
        DEEP,
        "forward_with_entailment_cone",
        class_name="HierarchyTransformerLoss",
        instruction="Implement it.",
        category="Training Objectives & Optimization",
        driver="print(1)\n",
    )
    spec = TaskSpec(
        folder_name="02-HierarchyTransformersWithALongName",
        source=str(repo),
        repo_path=str(repo),
        repo_folder_name=repo.name,
        repo_commit="0" * 40,
        paper_pdf=str(paper),
        paper_name=LONG_TITLE,
        instance_id=2,
        year=2024,
        base_image="registry.example.invalid/research/hierarchy-transformers:cuda-12.1-torch",
        goals=[goal],
    )
    save_spec(spec, draft_path("uncut"))
    app = NewTaskApp(benchmark_dir=tmp_path / "benchmark", draft_name="uncut")
    survivor = Mutant(
        3,
        "constant",
        "0.1 → 0.2 in the margin of the exponential of the entailment cone's distance",
        b"",
        diff="-            total += math.exp(-margin * (e - p))\n"
        "+            total += math.exp(-0.2 * margin * (e - p))\n",
    )
    results = {
        "environment": EnvironmentStep.Built(BuildResult(True, None, 140.0, False)),
        "tests": TestsStep.Recorded(
            RecordingResult([Path("a")] * 3, [Path("b")] * 3, True, seconds=41.0),
            ["forward_with_entailment_cone_1.json", "forward_with_entailment_cone_2.json"],
        ),
        "check": CheckStep.Checked(SaveCheck(key="k", verified=True, seconds=37)),
        "save": SaveStep.Done(
            Written(tmp_path / "benchmark" / spec.folder_name, ["info.json", "Dockerfile"], spec)
        ),
    }
    cut: list[str] = []
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        for index, (name, _) in enumerate(STEPS):
            if name == "tests":
                app.survivor_hint = SurvivorHint(
                    0, survivor.key, survivor.description, survivor.diff
                )
            app.go_to(index)
            await settle(pilot)
            await settle(pilot)
            cut += _cut_texts(app)
            if name in results:
                app.screen.post_message(results[name])
                await settle(pilot)
                if name == "check":
                    report = MutationReport(spec.folder_name, 1, 4, 3, survivors=[survivor])
                    app.screen.post_message(CheckStep.Mutated([report]))
                    await settle(pilot)
                cut += _cut_texts(app)
    assert cut == [], "\n".join(cut)


async def test_the_instruction_editor_has_room_and_ctrl_end_reaches_the_end(
    toy_repo: Path,
) -> None:
    app = _app(toy_repo, "instruction", "editor", goals=[GoalSpec("toy/losses.py", "margin_loss")])
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        editor = app.screen.query_one("#instruction", TextArea)
        template = editor.text
        assert template.startswith("Implement the `margin_loss` function")
        assert editor.content_region.height >= 8  # twice what 24 rows gave it
        editor.focus()
        await pilot.press(*" More.")  # typed text goes after the template, not before
        assert editor.text == template + " More."
        await pilot.press("ctrl+home", *"A ")
        assert editor.text == "A " + template + " More."
        await pilot.press("ctrl+end", *" End.")
        assert editor.text.endswith(" More. End.")
        assert app.spec.goals[0].instruction == editor.text


# -- the Check step ---------------------------------------------------------------------


def _report(folder: str, count: int):  # type: ignore[no-untyped-def]
    from lmr_author.mutation.mutants import Mutant
    from lmr_author.mutation.score import MutationReport

    survivors = [
        Mutant(n, "constant", f"{n}.0 → 2.0", b"", diff=f"-    x = {n}.0\n+    x = 2.0\n")
        for n in range(count)
    ]
    return MutationReport(folder, 1, count + 10, 10, survivors=survivors)


async def test_the_survivors_come_first_one_key_away_with_the_focus_in_sight(
    toy_repo: Path,
) -> None:
    from lmr_author.authoring.save import SaveCheck
    from lmr_author.tui.new_task.steps.check import CheckStep

    app = _app(toy_repo, "check", "check-survivors", folder_name="07-Toy", year=2024)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        screen = app.screen
        screen.post_message(CheckStep.Checked(SaveCheck(key="k", verified=True, seconds=3)))
        screen.post_message(CheckStep.Mutated([_report("07-Toy", 3)]))
        await settle(pilot)
        listing = screen.query_one("#survivor-list", OptionList)

        def in_sight(widget: object) -> bool:
            """Drawn whole in the body, or in the nav row (the step's primary action)."""
            region = widget.region  # type: ignore[attr-defined]
            within = [screen.query_one(f"#{name}").region for name in ("step-body", "nav")]
            return bool(region.area) and any(w.contains_region(region) for w in within)

        # After the mutation test: on the survivors at once, the first one's diff shown.
        assert screen.focused is listing and listing.highlighted == 0 and in_sight(listing)
        assert in_sight(screen.query_one("#survivors"))
        await pilot.press("down")
        assert "1.0 → 2.0" in str(screen.query_one("#survivors", Static).visual._renderable.code)  # type: ignore[attr-defined]
        await pilot.press("tab")  # the why box: one Tab away
        why = screen.query_one("#equivalent-reason", Input)
        assert screen.focused is why and in_sight(why)
        await pilot.press(*"square matrices", "enter")
        marks = app.spec.goals[0].equivalent_mutants
        assert [m["reason"] for m in marks] == ["square matrices"]
        # From anywhere in the step, the key the footer names goes back to them.
        screen.query_one("#field-folder_name", Input).focus()
        await pilot.pause()
        assert "^o Survivors" in _screen_text(app).rsplit("Next ▶", 1)[-1]
        await pilot.press("ctrl+o")
        assert screen.focused is listing and in_sight(listing)
        # Every Tab stop of the step is a field, a list or a button, and drawn in sight.
        seen = []
        for _ in range(25):
            await pilot.press("tab")
            focused = screen.focused
            assert focused is not None and focused.id != "step-body"
            assert in_sight(focused), focused
            seen.append(focused.id)
        assert "survivor-list" in seen and "equivalent-reason" in seen


async def test_verify_says_the_time_its_status_clock_counted(
    toy_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from lmr_author.authoring.save import SaveCheck
    from lmr_author.tui.new_task.steps import base
    from lmr_author.tui.new_task.steps.check import CheckStep

    now = [1000.0]
    monkeypatch.setattr(base, "_clock", lambda: now[0])
    app = _app(toy_repo, "check", "check-clock", folder_name="07-Toy", year=2024)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, CheckStep)
        screen.log_start("Verify: static checks and the Docker proof")
        screen.log_progress("verifying", "#5 building the task image")
        now[0] += 83.4
        screen.post_message(CheckStep.VerifyLog("proving the tests in Docker"))
        await pilot.pause()
        assert "verifying (83 s)" in _screen_text(app, "status")
        # The checks timed only their own part (37 s): the verdict says the same 83 s.
        screen.post_message(CheckStep.Checked(SaveCheck(key="k", verified=True, seconds=37)))
        await settle(pilot)
        state = str(screen.query_one("#check-state", Static).visual)
        assert state == "verified ✓ golden passes, masked fails in 83 s (this exact content)"
        assert "masked fails in 83 s" in _screen_text(app, "status")
        assert "37 s" not in _screen_text(app)


# -- what the new-annotator trial tripped on ---------------------------------------------


async def test_a_not_yet_goes_once_what_it_asked_for_is_done(toy_repo: Path) -> None:
    from textual.widgets import Select

    app = _app(toy_repo, "instruction", "not-yet")
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+n")
        assert "not yet: Choose the category of margin_loss" in _screen_text(app, "status")
        select = app.screen.query_one("#category", Select)
        select.value = "Training Objectives & Optimization"
        await settle(pilot)
        assert _screen_text(app, "status").strip() == "ready: ctrl+n goes to the next step"
        await pilot.press("ctrl+n")
        await settle(pilot)
        assert app.spec.step == "environment"


async def test_a_mutation_run_is_said_as_such_and_its_verification_untimed(
    toy_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from lmr_author.authoring.save import SaveCheck
    from lmr_author.tui.new_task.steps import base
    from lmr_author.tui.new_task.steps.check import CheckStep

    now = [50.0]
    monkeypatch.setattr(base, "_clock", lambda: now[0])
    app = _app(toy_repo, "check", "mutation-clock", folder_name="07-Toy", year=2024)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, CheckStep)
        screen.log_start("Mutation test")
        screen._activity = "mutation test"
        now[0] += 140
        screen.post_message(CheckStep.VerifyLog("07-Toy #1: mutant 14/38"))
        await pilot.pause()
        assert "mutation test (140 s): 07-Toy #1: mutant 14/38" in _screen_text(app, "status")
        check = SaveCheck(key="k", verified=True, seconds=37)
        screen.post_message(CheckStep.Checked(check, timed=False))
        await settle(pilot)
        state = str(screen.query_one("#check-state", Static).visual)
        assert state == "verified ✓ golden passes, masked fails (this exact content)"


async def test_calls_typed_in_the_driver_template_go_after_it(toy_repo: Path) -> None:
    app = _app(toy_repo, "tests", "driver-end", goals=[GoalSpec("toy/losses.py", "margin_loss")])
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        driver = app.screen.query_one("#driver", TextArea)
        template = driver.text
        assert app.screen.focused is driver and "from toy.losses import margin_loss" in template
        await pilot.press(*"margin_loss([1.0], [0.5])")
        assert driver.text == template + "margin_loss([1.0], [0.5])"
        assert app.spec.goals[0].driver == driver.text


async def test_calls_typed_in_a_driver_go_after_its_last_call(toy_repo: Path) -> None:
    # Back from Check to add a fixture that kills a survivor: the view showed the last
    # lines and the cursor sat on the first, so the call typed went before the import.
    goal = GoalSpec("toy/losses.py", "margin_loss", driver="margin_loss([1.0], [0.5])")
    app = _app(toy_repo, "tests", "driver-calls", goals=[goal])
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        driver = app.screen.query_one("#driver", TextArea)
        assert app.screen.focused is driver
        await pilot.press("enter", *"margin_loss([2.0], [2.0])")
        assert app.spec.goals[0].driver.splitlines() == [
            "margin_loss([1.0], [0.5])",
            "margin_loss([2.0], [2.0])",
        ]


async def test_a_step_s_log_wraps_every_line_whole_at_80_columns(toy_repo: Path) -> None:
    from textual.widgets import RichLog

    from lmr_author.tui.new_task.steps.save import SaveStep

    app = _app(toy_repo, "save", "log-wrap", folder_name="07-Toy")
    line = "paper: Markdown, 16 page(s): " + " ".join(f"word{n}" for n in range(40))
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        log = app.screen.query_one("#save-log", RichLog)
        log.display = True
        await pilot.pause()
        app.screen.post_message(SaveStep.Progress(line))
        await settle(pilot)
        width = log.scrollable_content_region.width
        assert log.lines and all(strip.cell_length <= width for strip in log.lines)
        assert _squashed(line) == _squashed("".join(strip.text for strip in log.lines))
