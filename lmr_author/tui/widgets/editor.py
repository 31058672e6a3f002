"""Edit a text in the annotator's own editor ($VISUAL or $EDITOR), the app suspended."""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from textual.app import App


def editor_command() -> list[str] | None:
    """The annotator's editor as an argv, or None when neither variable is set."""
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR")
    return shlex.split(editor) if editor else None


def edit_text(app: App[Any], text: str, *, suffix: str) -> str | None:
    """The text after the annotator edited it, or None without an editor.

    The app is suspended while the editor runs, so this runs on the UI thread (Textual
    requires it); the temporary file is small and removed at once.
    """
    command = editor_command()
    if command is None:
        return None
    with tempfile.NamedTemporaryFile("w", suffix=suffix, delete=False, encoding="utf-8") as handle:
        handle.write(text)
    try:
        with app.suspend():
            subprocess.run([*command, handle.name], check=False)
        return Path(handle.name).read_text(encoding="utf-8")
    finally:
        Path(handle.name).unlink(missing_ok=True)
