"""The rules answer-leak and paper-pdf-missing, through validate as users run it."""

from __future__ import annotations

import shutil
from pathlib import Path

from lmr_author.validate.static import validate_task
from tests.leaks.support import FIXTURES, RENAMED, SAME_NAME_DIFFERENT, published_task, repo
from tests.support.fuzz import run_cli


def _findings(task: Path, rule: str) -> list:
    return [f for f in validate_task(task).findings if f.rule == rule]


def test_a_copy_is_an_error_naming_file_function_similarity_and_what_to_do(
    tmp_path: Path,
) -> None:
    task = published_task(tmp_path)
    (repo(task) / "scoring.py").write_text(RENAMED)
    [finding] = _findings(task, "answer-leak")
    assert finding.severity == "error"
    assert finding.file == "scorer/scoring.py" and finding.where == "lines 2-10"
    assert "'Scorer.combine'" in finding.message and "'weighted_mean'" in finding.message
    assert "similarity 1.00" in finding.message
    assert "validate --fix" in finding.hint


def test_a_clean_task_has_no_leak_finding(tmp_path: Path) -> None:
    task = published_task(tmp_path)
    (repo(task) / "baseline.py").write_text(SAME_NAME_DIFFERENT)
    assert _findings(task, "answer-leak") == []


def test_paper_json_without_paper_pdf_is_warned_about_with_the_prompts_words(
    tmp_path: Path,
) -> None:
    task = published_task(tmp_path)
    (repo(task) / "paper.json").write_text('{"1": "A paper."}')
    [finding] = _findings(task, "paper-pdf-missing")
    assert finding.severity == "warning" and finding.file == "scorer/paper.pdf"
    assert '"You are given a research paper named paper.pdf"' in finding.message
    (repo(task) / "paper.pdf").write_bytes(b"%PDF-1.4\n")
    assert _findings(task, "paper-pdf-missing") == []


def test_validate_fix_names_each_file_it_repaired(tmp_path: Path) -> None:
    task = published_task(tmp_path)
    (repo(task) / "__pycache__").mkdir()
    shutil.copy(
        FIXTURES / "golden.cpython-310.pyc", repo(task) / "__pycache__" / "metrics.cpython-310.pyc"
    )
    outcome = run_cli(["validate", str(task), "--fix", "--select", "answer-leak"])
    assert outcome.code == 0, outcome.out
    assert (
        f"fixed {task.name}/scorer/__pycache__/metrics.cpython-310.pyc: deleted "
        in outcome.out.replace("\n", " ")
    )
    assert not (repo(task) / "__pycache__" / "metrics.cpython-310.pyc").exists()
