"""Errors that reach the user as one readable paragraph instead of a traceback."""

from __future__ import annotations

from pathlib import Path

#: Exit codes shared by every command.
EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_USAGE = 2


class UserError(Exception):
    """Bad input or environment, explained to the user in one paragraph.

    The CLI prints ``str(error)`` and exits with ``exit_code``; no traceback is shown.
    Name the file, the JSON path or line, and what to do about it.
    """

    def __init__(
        self,
        message: str,
        *,
        file: str | Path | None = None,
        where: str | None = None,
        hint: str | None = None,
        exit_code: int = EXIT_USAGE,
    ) -> None:
        self.message = message
        self.file = str(file) if file is not None else None
        self.where = where
        self.hint = hint
        self.exit_code = exit_code
        super().__init__(self.render())

    def render(self) -> str:
        location = ""
        if self.file:
            location = self.file + (f" ({self.where})" if self.where else "") + ": "
        elif self.where:
            location = f"{self.where}: "
        text = f"{location}{self.message}"
        if self.hint:
            # A sentence break between what went wrong and what to do about it.
            text += ("" if text.rstrip().endswith((".", "!", "?", ":")) else ".") + f" {self.hint}"
        return text
