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
from typing import Any, ClassVar, Literal

from textual.binding import Binding, BindingType
from textual.widgets import TextArea

DOCKERFILE = "dockerfile"


class IndentingEditor(TextArea):
    """A code editor where Tab indents: the footer says Escape leaves it.

    TextArea already moves focus on Escape when Tab indents; this binding only names that
    key in the footer, so nobody is stuck in the editor.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "leave", "Leave editor (Tab indents)"),
    ]

    def action_leave(self) -> None:
        self.screen.focus_next()


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
    tab_behavior: Literal["focus", "indent"] = "indent",
) -> TextArea:
    """A `TextArea.code_editor` for ``language`` ("python", "dockerfile" or None).

    ``tab_behavior="focus"`` makes Tab leave the editor like any field: right for files
    whose lines never start with a tab or an indent (requirements, a Dockerfile).
    """
    kind = IndentingEditor if tab_behavior == "indent" else TextArea
    area = kind.code_editor(text, id=id, soft_wrap=soft_wrap, tab_behavior=tab_behavior)
    if language == DOCKERFILE:
        grammar = _dockerfile_grammar()
        if grammar is not None:
            area.register_language(DOCKERFILE, *grammar)
            area.language = DOCKERFILE
    elif language is not None and language in area.available_languages:
        area.language = language
    return area
