"""Importing the LLM-judge outputs published with LMR-Bench."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from lmr_author.judge.published import (
    load_published_judgments,
    parse_published_name,
    scan_published_judgments,
)
from lmr_author.util.errors import UserError

BARE = '{\n  "category": "1",\n  "rationale": ["missing entirely"]\n}\n'
FENCED = '```json\n{"category": 3, "rationale": ["fine", "also fine"]}\n```\n'


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        (
            "1-DPO_direct-preference-optimization_0_analysis.txt",
            ("1-DPO", 1, "direct-preference-optimization", 0),
        ),
        ("05-SimPO_SimPO_2_analysis.txt", ("05-SimPO", 5, "SimPO", 2)),
        (
            "16-KnowProb_know_prob-main_v2_1_analysis.txt",
            ("16-KnowProb", 16, "know_prob-main_v2", 1),
        ),
        ("3-Multi-Word-Task_repo_12_analysis.txt", ("3-Multi-Word-Task", 3, "repo", 12)),
        ("DPO_repo_0_analysis.txt", None),
        ("1-DPO_repo_analysis.txt", None),
        ("1-DPO_repo_0.txt", None),
    ],
)
def test_names(name: str, expected: tuple[str, int, str, int] | None) -> None:
    assert parse_published_name(name) == expected


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_folder_import(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    _write(tmp_path / "BaseAgent/gpt4o/1-DPO_direct-preference-optimization_0_analysis.txt", BARE)
    _write(tmp_path / "OpenHands/o4-mini/16-KnowProb_know_prob_1_analysis.txt", FENCED)
    _write(tmp_path / "OpenHands/o4-mini/17-Bad_repo_0_analysis.txt", "no json here")
    _write(tmp_path / "OpenHands/o4-mini/not-a-task_analysis.txt", BARE)
    _write(tmp_path / "stray_1-DPO_repo_0_analysis.txt", BARE)
    _write(tmp_path / "OpenHands/o4-mini/README.md", "ignored")

    scan = scan_published_judgments(tmp_path)
    by_task = {j.task: j for j in scan.judgments}
    assert set(by_task) == {"1-DPO", "16-KnowProb", "17-Bad"}
    dpo = by_task["1-DPO"]
    assert (dpo.agent, dpo.model, dpo.paper_index) == ("BaseAgent", "gpt4o", 1)
    assert (dpo.repo_folder, dpo.implementation_index0, dpo.category) == (
        "direct-preference-optimization",
        0,
        1,
    )
    assert dpo.rationale == ["missing entirely"]
    know = by_task["16-KnowProb"]
    assert (know.repo_folder, know.implementation_index0, know.category) == ("know_prob", 1, 3)
    assert by_task["17-Bad"].category is None
    assert len(scan.problems) == 3
    assert any("not-a-task_analysis.txt" in p for p in scan.problems)
    assert any("stray_" in p for p in scan.problems)

    with caplog.at_level(logging.WARNING):
        loaded = load_published_judgments(tmp_path)
    assert [j.task for j in loaded] == [j.task for j in scan.judgments]
    assert len(caplog.records) == 3


def test_missing_folder(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="no such folder"):
        load_published_judgments(tmp_path / "nope")
