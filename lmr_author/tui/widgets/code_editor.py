"""Code editors with syntax highlighting for the languages a task folder holds.

Textual highlights Python (and a dozen more) through tree-sitter when its ``syntax``
extra is installed; it has no Dockerfile grammar, so we register the one the
``tree-sitter-dockerfile`` package ships, with that package's own highlight query.
Requirements files have no grammar anywhere: they get line numbers and no colour.
Without the grammars installed the editors still work, uncoloured.
"""

from __future__ import annotations

import warnings
from functools import cache
from pathlib import Path
from typing import Any, ClassVar

from textual.binding import Binding, BindingType
from textual.widgets import TextArea

DOCKERFILE = "dockerfile"


class _DocumentKeys(TextArea):
    """ctrl+home / ctrl+end go to the start / the end of the whole text (with shift:
    select to there), as in every editor; a TextArea alone moves only within a line."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+home", "cursor_document_start", "Start", show=False),
        Binding("ctrl+end", "cursor_document_end", "End", show=False),
        Binding("ctrl+shift+home", "cursor_document_start(True)", show=False),
        Binding("ctrl+shift+end", "cursor_document_end(True)", show=False),
    ]

    def action_cursor_document_start(self, select: bool = False) -> None:
        self.move_cursor((0, 0), select=select)

    def action_cursor_document_end(self, select: bool = False) -> None:
        self.move_cursor(self.document.end, select=select)


class CodeEditor(_DocumentKeys):
    """A code editor in which Tab never edits: it moves the focus, as in every field.

    An annotator tabbing through a step must never change a driver by passing through
    it (a Tab that indented the first line silently broke the driver). Indenting is
    ctrl+t (the selected lines, or the cursor's line); Backspace takes it back.
    """

    INDENT = "    "
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+t", "indent", "Indent"),
        Binding("ctrl+a", "select_all", "Select all"),
    ]

    def _lines(self) -> range:
        start, end = sorted((self.selection.start[0], self.selection.end[0]))
        return range(start, end + 1)

    def action_indent(self) -> None:
        if self.read_only:
            return
        for row in self._lines():
            self.insert(self.INDENT, (row, 0))


class TextEditor(_DocumentKeys):
    """Prose (an instruction): wrapped, Tab moves the focus, ctrl+a selects it all, so a
    template draft is replaced in one keystroke."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+a", "select_all", "Select all"),
    ]


@cache
def _dockerfile_grammar() -> tuple[Any, str] | None:
    try:
        import tree_sitter_dockerfile
        from tree_sitter import Language
    except ImportError:
        return None
    queries = Path(tree_sitter_dockerfile.__file__).parent / "queries" / "highlights.scm"
    try:
        query = queries.read_text(encoding="utf-8")
    except OSError:
        return None
    with warnings.catch_warnings():
        # This grammar still hands over its pointer as an int, which tree-sitter deprecates.
        warnings.simplefilter("ignore", DeprecationWarning)
        language = Language(tree_sitter_dockerfile.language())
    return language, query


def code_editor(
    text: str,
    *,
    language: str | None,
    id: str,
    soft_wrap: bool = False,
) -> TextArea:
    """A `CodeEditor` for ``language`` ("python", "dockerfile" or None): highlighted,
    line numbers, and Tab that moves the focus (ctrl+t indents)."""
    area = CodeEditor.code_editor(text, id=id, soft_wrap=soft_wrap, tab_behavior="focus")
    if language == DOCKERFILE:
        grammar = _dockerfile_grammar()
        if grammar is not None:
            area.register_language(DOCKERFILE, *grammar)
            area.language = DOCKERFILE
    elif language is not None and language in area.available_languages:
        area.language = language
    return area
