"""Pilot tests of the new-task app at 80×24, as a new annotator meets it: the
dependencies come from the repository's own requirements file whatever its name, the
Goal step's keys do what its help says, the instruction editor has room and ctrl+end
reaches its end, and the function list's rows keep their shape."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import DataTable, TextArea

from lmr_author.authoring.spec import GoalSpec, TaskSpec, draft_path, save_spec
from lmr_author.tui.new_task.app import NewTaskApp
from tests.tui.new_task.conftest import settle
from tests.tui.new_task.test_new_user_findings import _screen_text

SMALL = (80, 24)


def _app(repo: Path, step: str, name: str, **fields: object) -> NewTaskApp:
    spec = TaskSpec(source=str(repo), repo_path=str(repo), step=step)
    spec.goals = [GoalSpec("toy/losses.py", "margin_loss", instruction="Implement it.")]
    for key, value in fields.items():
        setattr(spec, key, value)
    save_spec(spec, draft_path(name))
    return NewTaskApp(benchmark_dir=Path("bench"), draft_name=name)


async def test_dependencies_come_from_a_requirements_file_named_otherwise(
    toy_repo: Path,
) -> None:
    (toy_repo / "toy" / "gps.py").write_text("import torch\n\n\ndef gps(x):\n    return x\n")
    (toy_repo / "paper2code_requirements.txt").write_text("torch >= 2.0\ntyping_extensions\n")
    app = _app(toy_repo, "environment", "env-files", goals=[GoalSpec("toy/gps.py", "gps")])
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        table = app.screen.query_one("#proposals", DataTable)
        rows = [table.get_row_at(index) for index in range(table.row_count)]
        assert rows == [
            ["torch>=2.0", "paper2code_requirements.txt line 1; import in toy/gps.py line 1"]
        ]
        assert "torch>=2.0  # paper2code_requirements.txt line 1" in app.spec.requirements
        screen = _screen_text(app)
        assert "Read from the repository: paper2code_requirements.txt" in screen
        status = _screen_text(app, "status")
        assert "versions from paper2code_requirements.txt" in status, status
        assert app.screen.query_one("#requirements", TextArea).text == app.spec.requirements
