"""Step 6: the task's environment: dependencies proposed from the repository's own files
and the goal modules' imports, the requirements and the Dockerfile edited in the app (or
in $EDITOR), a GPU option, and a build whose log streams in, with a diagnosis on failure.

Every decision is a library call (`lmr_author.authoring.environment`, `image_build`);
this screen shows them and keeps the annotator's edits in the draft.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import (
    Button,
    Collapsible,
    DataTable,
    Input,
    Label,
    RichLog,
    Static,
    Switch,
    TabbedContent,
    TabPane,
    TextArea,
)

from lmr_author.tui.new_task.steps._wrap import wrap_text
from lmr_author.tui.new_task.steps.base import StepScreen, step_log
from lmr_author.tui.widgets.code_editor import DOCKERFILE, code_editor
from lmr_author.tui.widgets.editor import edit_text
from lmr_author.tui.widgets.log_view import plain
from lmr_author.util.errors import UserError

if TYPE_CHECKING:
    from lmr_author.authoring.environment import EnvironmentProposal, Requirement
    from lmr_author.authoring.image_build import BuildResult


class EnvironmentStep(StepScreen):
    STEP_NUMBER = 6
    PRIMARY = ("build", "Build")
    HELP: ClassVar[str] = (
        "The image the tests run in; fixtures are recorded in it too. Dependencies are "
        "proposed from the repository's files and the goal modules' imports: edit them, "
        "then Build."
    )

    class Proposed(Message):
        """The dependencies proposed for the draft (or why none could be)."""

        def __init__(self, proposal: EnvironmentProposal | None, error: str = "") -> None:
            super().__init__()
            self.proposal = proposal
            self.error = error

    class Rendered(Message):
        """The Dockerfile template rendered for the draft (CPU or GPU variant)."""

        def __init__(self, dockerfile: str) -> None:
            super().__init__()
            self.dockerfile = dockerfile

    class BuildLog(Message):
        """One line of the image build's log."""

        def __init__(self, line: str) -> None:
            super().__init__()
            self.line = line

    class Built(Message):
        """The build's result (``error`` when the draft itself is wrong)."""

        def __init__(self, result: BuildResult | None, error: str = "") -> None:
            super().__init__()
            self.result = result
            self.error = error

    def __init__(self) -> None:
        super().__init__()
        self._template = ""  # the Dockerfile as rendered: an unedited one follows the GPU switch

    def compose_step(self) -> ComposeResult:
        from lmr_author.authoring.dockerfile import GPU_NOTE

        yield Label("Proposed dependencies")
        # Which of the repository's files the versions come from (or that none does).
        yield Static("", id="declared-files", markup=False)
        yield DataTable(id="proposals", zebra_stripes=True, cursor_type="row")
        yield Static("", id="no-proposals", markup=False)
        yield Static("", id="unknown-imports", markup=False)
        # Folded: a repository may declare hundreds of packages the goal never imports.
        with Collapsible(title="", id="left-out", collapsed=True):
            yield Static("", id="left-out-list", markup=False)
        # The image every build starts from instead of the Dockerfile's FROM (a local
        # image with the heavy dependencies, e.g. --base-image); empty: the FROM.
        yield Label("Base image (instead of the Dockerfile's FROM)", id="base-image-label")
        yield Input(self.spec.base_image, id="base-image")
        with Horizontal(classes="row", id="gpu-row"):
            yield Switch(value=self.spec.gpu, id="gpu")
            yield Static(f"GPU image (CUDA). {GPU_NOTE}", id="gpu-note", markup=False)
        with TabbedContent(id="env-tabs"):
            with TabPane("requirements.txt", id="tab-requirements"):
                yield code_editor(self.spec.requirements, language=None, id="requirements")
            with TabPane("Dockerfile", id="tab-dockerfile"):
                yield code_editor(self.spec.dockerfile, language=DOCKERFILE, id="dockerfile")
        with Horizontal(classes="row"):
            yield Button("Open in $EDITOR", id="env-edit", compact=True)
            yield Button("Propose again", id="propose", compact=True)
        yield Static("", id="diagnosis", markup=False)
        yield step_log("build-log")

    def on_mount(self) -> None:
        self.query_one("#build-log", RichLog).display = False
        self.query_one("#diagnosis", Static).display = False
        self._propose()
        self._render_dockerfile(self.spec.gpu)

    # -- proposal ------------------------------------------------------------------------

    @on(Button.Pressed, "#propose")
    def _propose_pressed(self) -> None:
        self.spec.requirements = ""
        self._propose()

    @work(thread=True, exclusive=True, group="propose", exit_on_error=False)
    def _propose(self) -> None:
        from lmr_author.authoring.environment import propose_environment

        try:
            proposal = propose_environment(
                Path(self.spec.repo_path), [goal.goal_file for goal in self.spec.goals]
            )
        except UserError as error:
            self.post_message(self.Proposed(None, str(error)))
            return
        self.post_message(self.Proposed(proposal))

    def _fill_table(self, requirements: list[Requirement]) -> None:
        """The proposals, each cell wrapped at its column's width (at a "/" or "_" in a
        path): a DataTable's row is one line by default and its "why" ran off the edge."""
        table = self.query_one("#proposals", DataTable)
        table.clear(columns=True)
        # The table's room by the layout (new_task.tcss): the screen less the body's
        # padding and scrollbar, the table's scrollbar and two cells' padding each.
        room = self.app.size.width - 8 - 4
        longest = max((len(r.line) for r in requirements), default=0)
        first = min(max(longest, len("requirement")), room // 3)
        table.add_column("requirement", width=first)
        table.add_column("why", width=room - first)
        for requirement in requirements:
            table.add_row(
                wrap_text(requirement.line, first),
                wrap_text(requirement.source, room - first),
                height=None,
            )

    @on(Proposed)
    def _proposed(self, message: Proposed) -> None:
        proposal = message.proposal
        if proposal is None:
            self.set_status(message.error, error=True)
            return
        files = ", ".join(proposal.files)
        self.query_one("#declared-files", Static).update(
            f"Read from the repository: {files}"
            if proposal.files
            else "The repository declares no dependencies (no requirements, pyproject.toml, "
            "setup.py/.cfg or environment.yml): packages from the goal modules' imports, "
            "unpinned."
        )
        self._fill_table(proposal.requirements)
        self.query_one("#proposals", DataTable).display = bool(proposal.requirements)
        empty = self.query_one("#no-proposals", Static)
        empty.display = not proposal.requirements
        empty.update("The goal modules import no third-party package (standard library only).")
        notes = []
        left_out = self.query_one("#left-out", Collapsible)
        left_out.display = bool(proposal.declared_unused)
        # One line at 80 columns (a title does not wrap): what, then why.
        left_out.title = (
            f"{len(proposal.declared_unused)} more declared, left out: never imported by the goal"
        )
        self.query_one("#left-out-list", Static).update(
            ", ".join(req.line for req in proposal.declared_unused)
        )
        if proposal.unknown_imports:
            notes.append(
                "imports with no known distribution (add them by hand): "
                + ", ".join(proposal.unknown_imports)
            )
        unknown = self.query_one("#unknown-imports", Static)
        unknown.update("\n".join(notes))
        unknown.display = bool(notes)
        if not self.spec.requirements:
            self.spec.requirements = proposal.requirements_txt()
            self.query_one("#requirements", TextArea).load_text(self.spec.requirements)
            self.changed()
        count = len(proposal.requirements)
        if not count:
            self.set_status("no dependency proposed: the goal modules need the standard library")
            return
        source = f" (versions from {files})" if files else " (from imports; no dependency file)"
        self.set_status(f"{count} dependency(ies) proposed{source}")

    # -- editing -------------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="render", exit_on_error=False)
    def _render_dockerfile(self, gpu: bool) -> None:
        from lmr_author.authoring.dockerfile import render_task_dockerfile

        self.post_message(self.Rendered(render_task_dockerfile(self.spec.repo_folder(), gpu=gpu)))

    @on(Rendered)
    def _rendered(self, message: Rendered) -> None:
        area = self.query_one("#dockerfile", TextArea)
        if not self.spec.dockerfile or area.text == self._template:
            area.load_text(message.dockerfile)
        self._template = message.dockerfile
        self._show_default_base()

    def _show_default_base(self) -> None:
        """The base field's placeholder names what an empty field builds from."""
        from lmr_author.images.from_lines import rewrite_from

        bases = rewrite_from(self.query_one("#dockerfile", TextArea).text, None)[1]
        shown = ", ".join(bases) if bases else "none"
        self.query_one("#base-image", Input).placeholder = f"empty: the Dockerfile's FROM ({shown})"

    @on(Input.Changed, "#base-image")
    def _base_image_changed(self, event: Input.Changed) -> None:
        value = event.value.strip()
        if value != self.spec.base_image:
            self.spec.base_image = value
            self.changed()

    @on(Switch.Changed, "#gpu")
    def _gpu_changed(self, event: Switch.Changed) -> None:
        if event.value != self.spec.gpu:
            self.spec.gpu = event.value
            self.changed()
            self._render_dockerfile(event.value)

    @on(TextArea.Changed, "#requirements")
    def _requirements_changed(self, event: TextArea.Changed) -> None:
        if event.text_area.text != self.spec.requirements:
            self.spec.requirements = event.text_area.text
            self.changed()

    @on(TextArea.Changed, "#dockerfile")
    def _dockerfile_changed(self, event: TextArea.Changed) -> None:
        # An unedited Dockerfile stays "" in the draft: it follows the template and the
        # GPU switch; an edited one is kept word for word.
        text = event.text_area.text
        value = "" if text == self._template else text
        if value != self.spec.dockerfile:
            self.spec.dockerfile = value
            self.changed()
        self._show_default_base()

    @on(Button.Pressed, "#env-edit")
    def _edit(self) -> None:
        tabs = self.query_one("#env-tabs", TabbedContent)
        dockerfile = tabs.active == "tab-dockerfile"
        area = self.query_one("#dockerfile" if dockerfile else "#requirements", TextArea)
        edited = edit_text(self.app, area.text, suffix=".Dockerfile" if dockerfile else ".txt")
        if edited is None:
            self.set_status("Set $EDITOR (or $VISUAL) to edit in your own editor.", error=True)
            return
        area.load_text(edited)

    # -- build ---------------------------------------------------------------------------

    @on(Button.Pressed, "#build")
    def _build_pressed(self) -> None:
        self.query_one("#build", Button).disabled = True
        log = self.query_one("#build-log", RichLog)
        log.clear()
        log.display = True
        self.query_one("#diagnosis", Static).display = False
        self.log_start("Image build")
        base = self.spec.base_image or "the Dockerfile's FROM"
        self.set_status(f"building the image from {base}…")
        self._build()

    @work(thread=True, exclusive=True, group="build", exit_on_error=False)
    def _build(self) -> None:
        from lmr_author.authoring.dockerfile import check_environment, render_task_dockerfile
        from lmr_author.authoring.image_build import build_environment

        def say(line: str) -> None:
            self.post_message(self.BuildLog(line))

        folder = self.spec.repo_folder()
        dockerfile = self.spec.dockerfile or render_task_dockerfile(folder, gpu=self.spec.gpu)
        findings = check_environment(dockerfile, self.spec.requirements, folder)
        for finding in findings:
            say(f"{finding.severity}: {finding.file} {finding.where}: {finding.message}")
        errors = [f for f in findings if f.severity == "error"]
        if errors:
            first = errors[0]
            self.post_message(
                self.Built(None, f"{first.file} {first.where}: {first.message} (not built)")
            )
            return
        try:
            result = build_environment(self.spec, on_log=say)
        except UserError as error:
            self.post_message(self.Built(None, str(error)))
            return
        self.post_message(self.Built(result))

    @on(BuildLog)
    def _build_log(self, message: BuildLog) -> None:
        self.query_one("#build-log", RichLog).write(Text.from_ansi(message.line))
        self.log_progress("building", message.line)

    @on(Built)
    def _built(self, message: Built) -> None:
        self.query_one("#build", Button).disabled = False
        result = message.result
        if result is None:
            self.set_status(message.error, error=True)
            return
        if result.ok:
            self.authoring.environment_image = result.image
            how = "cached" if result.cached else f"{result.seconds:.0f} s"
            base = f" from {self.spec.base_image}" if self.spec.base_image else ""
            self.set_status(f"image built ✓{base} ({how})")
            return
        self.authoring.environment_image = None
        diagnosis = result.diagnosis
        shown = self.query_one("#diagnosis", Static)
        if diagnosis is None:
            self.set_status("the build failed", error=True)
            return
        text = (
            f"Build failed at: {diagnosis.step}\n"
            f"Cause: {diagnosis.cause}\nHint: {diagnosis.hint}\n"
            "Last lines:\n" + "\n".join(f"  {plain(line)}" for line in diagnosis.tail)
        )
        shown.update(text)
        shown.display = True
        shown.add_class("error")
        self.set_status(f"build failed: {diagnosis.cause}\n{text}", error=True)
