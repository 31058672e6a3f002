"""The live info.json check of a draft agrees with the info.json the builder writes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lmr_author.authoring.build import build_task
from lmr_author.authoring.check import draft_info, schema_check
from lmr_author.authoring.spec import GoalSpec, TaskSpec
from lmr_author.schema import schema_issues


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
