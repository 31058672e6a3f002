"""Through `new-task --spec`, in Docker: a goal module with notebook-style top-level
code that reads a Git LFS pointer. The first try names the pointer and the way out; the
guarded task is written and validates with `--run`. The paper is given as Markdown and
as a LaTeX source tarball."""

from __future__ import annotations

import json
import tarfile
from pathlib import Path
from typing import Any

import pytest

from lmr_author.cli import main
from tests.authoring.test_paper_forms import PAPER_MD, _latex_folder
from tests.support.notebook_repo import DRIVER, notebook_repo

pytestmark = [pytest.mark.docker, pytest.mark.slow]

GOAL = "analysis/analysis_after_processing.py"


def _paper(tmp_path: Path, form: str) -> Path:
    if form == "markdown":
        path = tmp_path / "PAPER.md"
        path.write_text(PAPER_MD)
        return path
    src = _latex_folder(tmp_path / "latex")
    path = tmp_path / "arxiv-source.tar.gz"
    with tarfile.open(path, "w:gz") as tar:
        tar.add(src, arcname=".")
    return path


@pytest.mark.parametrize("form", ["markdown", "latex"])
def test_spec_names_the_pointer_then_the_guarded_task_validates(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], docker_client: Any, form: str
) -> None:
    from lmr_author.sandbox.housekeeping import prune

    repo = notebook_repo(tmp_path / "EmpathyGap-main")
    folder = f"94-Gap{form[:3]}{tmp_path.name[-6:].replace('_', '')}"
    spec: dict[str, Any] = {
        "folder_name": folder,
        "source": str(repo),
        "paper_pdf": str(_paper(tmp_path, form)),
        "year": 2025,
        "goals": [
            {
                "goal_file": GOAL,
                "goal_function": "get_delta",
                "instruction": "Implement get_delta.",
                "category": "Evaluation Metrics",
                "driver": DRIVER,
            }
        ],
    }
    spec_file = tmp_path / "spec.json"
    bench = tmp_path / "bench"
    try:
        if form == "markdown":  # the first try: the truth about the import
            spec_file.write_text(json.dumps(spec))
            assert main(["new-task", "--spec", str(spec_file), "--into", str(bench)]) == 2
            err = capsys.readouterr().err
            assert f"importing the goal module {GOAL} failed" in err
            assert "data/ratings.csv" in err and "git lfs pull" in err
            assert f'"guarded_files": ["{GOAL}"]' in err
            assert not (bench / folder).exists()
        spec["guarded_files"] = [GOAL]
        spec_file.write_text(json.dumps(spec))
        assert main(["new-task", "--spec", str(spec_file), "--into", str(bench)]) == 0
        assert "paper: " in capsys.readouterr().out  # said before any Docker step
        info = json.loads((bench / folder / "info.json").read_text())
        assert info["paper_name"] == "Margin Losses for Toy Preferences"
        repo_copy = bench / folder / "EmpathyGap-main"
        pages = json.loads((repo_copy / "paper.json").read_text())
        assert "1 Method" in "".join(pages.values())
        assert 'if __name__ == "__main__":' in (repo_copy / GOAL).read_text()
        assert "if __name__" not in (repo / GOAL).read_text()  # the annotator's repo as it was
        fixtures = sorted((repo_copy / "unit_test" / "fixtures").iterdir())
        assert len(fixtures) == 5  # every driver call
        assert main(["validate", "--run", str(bench / folder)]) == 0
    finally:
        prune(client=docker_client, task=folder)
