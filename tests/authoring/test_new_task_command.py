"""`lmr-author new-task --spec`: the same steps as the app, from a JSON spec."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lmr_author.authoring.spec import TaskSpec
from lmr_author.cli import main
from lmr_author.domain.task import load_task
from lmr_author.validate.task_dir import validate_task_dir

DRIVER = (
    "from toy.losses import margin_loss\nmargin_loss([1.0, 2.0], [0.5, 3.0])\n"
    "margin_loss([0.0], [1.0], beta=2.0)\n"
)


@pytest.fixture
def spec_file(tmp_path: Path, toy_repo: Path) -> Path:
    from lmr_author.authoring.paper_pdf import make_paper_pdf

    make_paper_pdf("Toy Margins", [("Method", "A logistic margin loss.")], tmp_path / "p.pdf")
    spec = {
        "folder_name": "07-Toy",
        "source": str(toy_repo),
        "ref": "v1",
        "paper_pdf": str(tmp_path / "p.pdf"),
        "paper_name": "Toy Margins",
        "year": 2025,
        "instance_id": 7,
        "goals": [
            {
                "goal_file": "toy/losses.py",
                "goal_function": "margin_loss",
                "instruction": "Implement margin_loss.",
                "retrieval_context": ["toy/utils.py"],
                "category": "Training Objectives & Optimization",
                "driver": DRIVER,
            },
            {
                "goal_file": "toy/losses.py",
                "goal_function": "score",
                "class_name": "Scorer",
                "instruction": "Implement Scorer.score.",
                "category": "Evaluation Metrics",
                "mask_style": "todo",
                "driver": "from toy.losses import Scorer\nScorer(3.0).score([1, 2])\n",
            },
        ],
    }
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(spec))
    return path


@pytest.mark.docker  # fixtures are recorded, and the task proven, in its image
def test_spec_builds_a_clean_task_and_never_overwrites_silently(
    spec_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], docker_client: Any
) -> None:
    bench = tmp_path / "bench"
    assert main(["new-task", "--spec", str(spec_file), "--into", str(bench)]) == 0
    task = load_task(bench / "07-Toy")
    assert [(i.index, i.qualified_name) for i in task.implementations] == [
        (1, "margin_loss"),
        (2, "Scorer.score"),
    ]
    assert task.repo_commit and task.repo_folder_name == "toy-repo"
    masked = task.implementations[0].goal_path.read_text()
    assert "raise NotImplementedError" in masked  # the todo style of Scorer.score
    assert "total = 0.0" not in masked
    assert sorted(p.name for p in (task.repo_dir / "unit_test" / "fixtures").iterdir()) == [
        "Scorer_score_1.json",
        "margin_loss_1.json",
        "margin_loss_2.json",
    ]
    assert validate_task_dir(task.path) == []

    capsys.readouterr()
    assert main(["new-task", "--spec", str(spec_file), "--into", str(bench)]) == 2
    assert "exists already" in capsys.readouterr().err
    assert main(["new-task", "--spec", str(spec_file), "--into", str(bench), "--force"]) == 0


def test_example_spec_is_a_valid_spec(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["new-task", "--example-spec"]) == 0
    TaskSpec.from_json(json.loads(capsys.readouterr().out))


@pytest.mark.parametrize(
    ("edit", "named", "message"),
    [
        (
            lambda s, t: s.update(paper_pdf=str(_write(t / "paper.md", b"\xff\xfe"))),
            "paper.md",
            "UTF-8",
        ),
        (lambda s, t: s.update(paper_pdf=str(t / "missing.tex")), "missing.tex", "no such file"),
        (lambda s, t: s["goals"][0].update(goal_function="nothing_here"), "", "nothing_here"),
        (lambda s, t: s["goals"][0].update(goal_file="toy/none.py"), "toy/none.py", "no such goal"),
        (lambda s, t: s.update(year=None, paper_pdf=""), "", "no year"),
    ],
)
def test_spec_checks_every_input_before_any_docker_step(
    spec_file: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    edit: Any,
    named: str,
    message: str,
) -> None:
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/no-engine.sock")  # never reached
    spec = json.loads(spec_file.read_text())
    edit(spec, tmp_path)
    spec_file.write_text(json.dumps(spec))
    assert main(["new-task", "--spec", str(spec_file), "--into", str(tmp_path / "b")]) == 2
    err = capsys.readouterr().err
    assert message in err and named in err
    assert "docker" not in err.lower() and "lmr-author-save-" not in err


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path
