"""The full output of a failed or running piece of work, never cut off.

The status bar has room for one line; everything else (a driver's traceback, an image
build's log, the verifier's progress, the exception and its hint) goes into an
`OutputLog`, and `LogScreen` shows it in a scrollable, wrapping view.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, RichLog, Static

_MAX_LINES = 5000  # a runaway build log must not eat the memory of the app


@dataclass
class OutputLog:
    """The lines of the step's last pieces of work, newest last, with a title."""

    title: str = "Output"
    lines: list[str] = field(default_factory=list)

    def start(self, title: str) -> None:
        """Begin the output of a new piece of work (the previous one is dropped)."""
        self.title = title
        self.lines = []

    def add(self, text: str) -> None:
        # Build and run logs carry terminal colour codes; the log view shows plain text.
        self.lines.extend(plain(text).splitlines() or [""])
        del self.lines[:-_MAX_LINES]

    def extend(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.add(line)

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


def plain(text: str) -> str:
    """``text`` without its ANSI colour codes (Docker's build output has them)."""
    return Text.from_ansi(text).plain if "\x1b" in text else text


def first_line(text: str) -> str:
    """The line that fits in a status bar: the first non-empty one."""
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return ""


class LogScreen(ModalScreen[None]):
    """The whole output of the last piece of work, scrollable and wrapped."""

    DEFAULT_CSS = """
    LogScreen {
        align: center middle;
    }
    LogScreen > Vertical {
        width: 96%;
        height: 92%;
        border: thick $primary;
        background: $surface;
    }
    LogScreen #log-title {
        height: 1;
        padding: 0 1;
        text-style: bold;
    }
    LogScreen RichLog {
        height: 1fr;
    }
    LogScreen #log-close {
        dock: bottom;
        width: 100%;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,ctrl+l", "dismiss_log", "Close the log"),
    ]

    def __init__(self, output: OutputLog) -> None:
        super().__init__()
        self.output = output

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.output.title, id="log-title", markup=False)
            yield RichLog(id="full-log", wrap=True, markup=False, highlight=False, min_width=1)
            yield Button("Close (esc)", id="log-close", compact=True)

    def on_mount(self) -> None:
        log = self.query_one("#full-log", RichLog)
        for line in self.output.lines or ["(no output)"]:
            log.write(line)
        log.focus()

    def action_dismiss_log(self) -> None:
        self.dismiss(None)

    @on(Button.Pressed, "#log-close")
    def _close(self) -> None:
        self.dismiss(None)
