"""Step 7: check the draft: the schema live as fields change, the static rules on a
scratch build, and the proof in Docker that the tests pass on golden code and fail on
masked code, with the progress streaming in."""

from __future__ import annotations

import json
from typing import ClassVar

from rich.syntax import Syntax
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Button, DataTable, Input, Label, RichLog, Static

from lmr_author.authoring.check import build_scratch, draft_info, schema_check
from lmr_author.errors import UserError
from lmr_author.tui.new_task.steps.base import StepScreen
from lmr_author.validate.findings import Finding

_FIELDS = (
    ("folder_name", "Task folder name (e.g. 07-MyMethod)"),
    ("instance_id", "Instance id (a number)"),
    ("paper_url", "Paper URL"),
    ("year", "Year"),
)


class CheckStep(StepScreen):
    STEP_NUMBER = 8
    HELP: ClassVar[str] = (
        "info.json is checked against the schema as you type. 'Static checks' runs the "
        "validator on a scratch build; 'Verify in Docker' proves golden passes, masked fails."
    )

    class Checked(Message):
        """Findings of the static rules (``docker`` False) or of the Docker proof."""

        def __init__(self, findings: list[Finding], *, docker: bool, error: str = "") -> None:
            super().__init__()
            self.findings = findings
            self.docker = docker
            self.error = error

    class VerifyLog(Message):
        """A line of the Docker proof's progress or image build."""

        def __init__(self, line: str) -> None:
            super().__init__()
            self.line = line

    def __init__(self) -> None:
        super().__init__()
        self.verified = False

    def compose_step(self) -> ComposeResult:
        with Horizontal(id="check-panes"):
            with Vertical(id="check-fields"):
                for name, label in _FIELDS:
                    value = getattr(self.spec, name)
                    yield Label(label)
                    yield Input("" if value is None else str(value), id=f"field-{name}")
                with Horizontal(classes="row"):
                    yield Button("Static checks", id="static", variant="success")
                    yield Button("Verify in Docker", id="verify", variant="warning")
                yield Static("", id="schema-state")
            with VerticalScroll(id="info-pane"):
                yield Static("", id="info-json")
        yield DataTable(id="findings", zebra_stripes=True)
        yield RichLog(id="verify-log", max_lines=2000, wrap=True)

    def on_mount(self) -> None:
        table = self.query_one("#findings", DataTable)
        table.add_columns("severity", "rule", "file", "where", "message")
        self._refresh_info()

    @on(Input.Changed)
    def _field_changed(self, event: Input.Changed) -> None:
        name = (event.input.id or "").removeprefix("field-")
        if name in ("instance_id", "year"):
            text = event.value.strip()
            setattr(self.spec, name, int(text) if text.isdigit() else None)
        elif name in ("folder_name", "paper_url"):
            setattr(self.spec, name, event.value.strip())
        else:
            return
        self.changed()
        self.verified = False
        self._refresh_info()

    def _refresh_info(self) -> None:
        info = draft_info(self.spec)
        theme = "ansi_dark" if self.app.current_theme.dark else "ansi_light"
        self.query_one("#info-json", Static).update(
            Syntax(json.dumps(info, indent=4, ensure_ascii=False), "json", theme=theme)
        )
        issues = schema_check(self.spec)
        state = self.query_one("#schema-state", Static)
        state.set_class(bool(issues), "error")
        if issues:
            state.update("\n".join(f"✗ {i.path}: {i.message}" for i in issues[:6]))
        else:
            state.update("✓ info.json matches the schema")

    def _show_findings(self, findings: list[Finding]) -> None:
        table = self.query_one("#findings", DataTable)
        table.clear()
        for finding in findings:
            table.add_row(
                finding.severity, finding.rule, finding.file, finding.where, finding.message
            )

    @on(Button.Pressed, "#static")
    def _static_pressed(self) -> None:
        self.log_start("Static checks")
        self.set_status("building a scratch copy and validating…")
        self._static()

    @work(thread=True, exclusive=True, group="check", exit_on_error=False)
    def _static(self) -> None:
        from lmr_author.validate.engine import validate_task_dir

        try:
            check = build_scratch(self.spec)
        except UserError as error:
            self.post_message(self.Checked([], docker=False, error=str(error)))
            return
        try:
            findings = validate_task_dir(check.task.path)
        finally:
            check.cleanup()
        self.post_message(self.Checked(findings, docker=False))

    @on(Button.Pressed, "#verify")
    def _verify_pressed(self) -> None:
        self.query_one("#verify-log", RichLog).clear()
        self.log_start("Verify in Docker")
        self.set_status("verifying in Docker…")
        self._verify()

    @work(thread=True, exclusive=True, group="check", exit_on_error=False)
    def _verify(self) -> None:
        from lmr_author.validate.dynamic import run_dynamic_checks

        def say(line: str) -> None:
            self.post_message(self.VerifyLog(line))

        try:
            check = build_scratch(self.spec)
        except UserError as error:
            self.post_message(self.Checked([], docker=True, error=str(error)))
            return
        try:
            say("building the image and running golden / masked / golden…")
            findings = run_dynamic_checks(check.task, on_progress=say, on_log=say)
        finally:
            check.cleanup()
        self.post_message(self.Checked(findings, docker=True))

    @on(VerifyLog)
    def _verify_log(self, message: VerifyLog) -> None:
        self.query_one("#verify-log", RichLog).write(message.line)
        self.log_line(message.line)

    @on(Checked)
    def _checked(self, message: Checked) -> None:
        if message.error:
            self.set_status(message.error, error=True)
            return
        findings = message.findings
        self._show_findings(findings)
        errors = [f for f in findings if f.severity == "error"]
        if not message.docker:
            self.set_status(
                f"static checks: {len(errors)} error(s), {len(findings) - len(errors)} warning(s)",
                error=bool(errors),
            )
            return
        self.verified = not errors
        if errors:
            details = "\n\n".join(f"{f.rule} {f.file} {f.where}\n{f.message}" for f in errors)
            self.set_status(f"verification failed: {errors[0].message}\n{details}", error=True)
        else:
            self.set_status("verified ✓ golden passes, masked fails")

    def can_leave(self) -> str | None:
        if not self.spec.folder_name:
            return "Give the task a folder name."
        issues = schema_check(self.spec)
        if issues:
            return f"info.json does not match the schema yet: {issues[0].path}: {issues[0].message}"
        return None
