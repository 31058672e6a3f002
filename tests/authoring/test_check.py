"""The live info.json check of a draft agrees with the info.json the builder writes."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from lmr_author.authoring.build import build_task
from lmr_author.authoring.check import draft_info, live_check, schema_check
from lmr_author.authoring.spec import GoalSpec, TaskSpec
from lmr_author.util.schema import schema_issues


def _draft(repo: Path, **fields: Any) -> TaskSpec:
    goal = GoalSpec("toy/losses.py", "margin_loss", instruction="Implement margin_loss.")
    return TaskSpec(folder_name="07-Toy", source=str(repo), goals=[goal], **fields)


def test_the_live_check_reports_what_the_written_info_json_breaks(
    toy_repo: Path, tmp_path: Path
) -> None:
    # No instance id and no year: the builder writes them as null, which the schema refuses.
    spec = _draft(toy_repo, paper_name="Toy Margins")
    task = build_task(spec, tmp_path / "bench")
    written = json.loads(task.info_path.read_text(encoding="utf-8"))
    written_issues = {issue.path for issue in schema_issues(written)}
    assert {"$.instance_id", "$.year"} <= written_issues
    assert {issue.path for issue in schema_check(spec)} == written_issues


def test_the_draft_info_is_the_written_info_json(toy_repo: Path, tmp_path: Path) -> None:
    spec = _draft(toy_repo, instance_id=7, year=2025, repo_commit="abc", repo_url="u")
    task = build_task(spec, tmp_path / "bench")
    written = json.loads(task.info_path.read_text(encoding="utf-8"))
    assert draft_info(spec) == written
    assert schema_check(spec) == []


def test_one_rule_names_the_repository_folder(tmp_path: Path) -> None:
    assert TaskSpec(repo_folder_name="mine", source="https://x/r.git").repo_folder() == "mine"
    assert TaskSpec(source="https://x/KnowProb-main.git").repo_folder() == "KnowProb-main"
    tree = tmp_path / "checkout"
    tree.mkdir()
    assert TaskSpec(source=".", repo_path=str(tree)).repo_folder() == "checkout"


def _save_refuses(spec: TaskSpec) -> bool:
    from lmr_author.authoring.save import fill_identity
    from lmr_author.util.errors import UserError

    try:
        fill_identity(copy.deepcopy(spec))
    except UserError:
        return True
    return False


@pytest.mark.parametrize(
    ("fields", "flagged"),
    [
        ({"folder_name": "07-Toy"}, {"$.year"}),  # the PDF's metadata has no year
        ({"folder_name": "Toy"}, {"$.instance_id", "$.year"}),
        ({"folder_name": "Toy", "year": 2024}, {"$.instance_id"}),
        ({"folder_name": "07-Toy", "year": 2024}, set()),  # instance_id from the folder
        ({"folder_name": "Toy", "instance_id": 3, "year": 2024}, set()),
    ],
)
def test_the_live_check_flags_what_save_cannot_fill(
    toy_repo: Path, toy_paper: Path, fields: dict[str, Any], flagged: set[str]
) -> None:
    spec = _draft(toy_repo, paper_name="Toy Margins", paper_pdf=str(toy_paper))
    for name, value in fields.items():
        setattr(spec, name, value)
    issues = {issue.path: issue.message for issue in live_check(spec)}
    assert set(issues) == flagged
    assert bool(flagged) == _save_refuses(spec)  # the live check agrees with Save
    if "$.year" in issues:
        assert "Set year" in issues["$.year"]  # what to do, not only what is wrong


@pytest.fixture
def toy_paper(tmp_path: Path) -> Path:
    from lmr_author.authoring.paper_pdf import make_paper_pdf

    out = tmp_path / "paper.pdf"
    make_paper_pdf("Toy Margins", [("Method", "A margin loss.")], out)  # no date metadata
    return out


def test_the_live_check_never_lays_out_the_paper(
    toy_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """It runs as fields are typed: a paper.json or LaTeX paper is laid out as a PDF
    only when the task is built (that took seconds per keystroke at 80×24)."""
    from lmr_author.authoring.paper_document import PaperDocument

    def no_layout(self: PaperDocument) -> bytes:
        raise AssertionError("the live check laid out the paper")

    monkeypatch.setattr(PaperDocument, "pdf", no_layout)
    paper = tmp_path / "paper.json"
    paper.write_text(json.dumps({"1": "A Title\nBody"}))
    spec = _draft(toy_repo, paper_pdf=str(paper))
    issues = {issue.path for issue in live_check(spec)}
    assert "$.year" in issues  # said, not filled: the paper.json gives no year
