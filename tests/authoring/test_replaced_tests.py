"""The repository's own test at the task's test path is named before it gives way."""

from __future__ import annotations

from pathlib import Path

from lmr_author.authoring.build import replaced_tests
from lmr_author.authoring.spec import GoalSpec, TaskSpec


def _spec(repo: Path, driver: str = "call()") -> TaskSpec:
    goal = GoalSpec("m.py", "f", driver=driver)
    return TaskSpec(folder_name="95-X", source=str(repo), repo_path=str(repo), goals=[goal])


def test_a_test_of_the_repositorys_own_is_named_with_its_size(tmp_path: Path) -> None:
    (tmp_path / "unit_test").mkdir()
    (tmp_path / "unit_test" / "unit_test_1.py").write_text("import torch\n" * 241)
    [notice] = replaced_tests(_spec(tmp_path))
    assert "repository's own unit_test/unit_test_1.py (241 lines)" in notice
    assert "your repository is not changed" in notice


def test_nothing_to_say_without_one_a_replay_test_or_a_driver(tmp_path: Path) -> None:
    assert replaced_tests(_spec(tmp_path)) == []
    (tmp_path / "unit_test").mkdir()
    (tmp_path / "unit_test" / "unit_test_1.py").write_text("import lmr_replay\n")
    assert replaced_tests(_spec(tmp_path)) == []
    (tmp_path / "unit_test" / "unit_test_1.py").write_text("import torch\n")
    assert replaced_tests(_spec(tmp_path, driver="")) == []
