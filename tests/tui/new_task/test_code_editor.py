"""The environment and tests steps edit code with syntax highlighting (issue 14)."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import TextArea

from lmr_author.tui.widgets.code_editor import DOCKERFILE, code_editor

DOCKERFILE_TEXT = "FROM python:3.11-slim\nRUN pip install -r requirements.txt\nENV A=1\n"


class _EditorApp(App[None]):
    def __init__(self, text: str, language: str | None) -> None:
        super().__init__()
        self._text, self._language = text, language

    def compose(self) -> ComposeResult:
        yield code_editor(self._text, language=self._language, id="editor")


async def _highlighted_lines(text: str, language: str | None) -> tuple[str | None, int]:
    app = _EditorApp(text, language)
    async with app.run_test() as pilot:
        await pilot.pause()
        area = app.query_one("#editor", TextArea)
        return area.language, sum(1 for spans in area._highlights.values() if spans)


async def test_a_dockerfile_is_highlighted_with_its_own_grammar() -> None:
    language, lines = await _highlighted_lines(DOCKERFILE_TEXT, DOCKERFILE)
    assert language == DOCKERFILE
    assert lines == 3  # every instruction line carries a highlighted keyword


async def test_a_driver_is_highlighted_as_python() -> None:
    language, lines = await _highlighted_lines("import numpy\nx = [1, 2]\n", "python")
    assert language == "python"
    assert lines >= 1


async def test_requirements_stay_plain_text() -> None:
    language, lines = await _highlighted_lines("pandas>=2\n", None)
    assert (language, lines) == (None, 0)
