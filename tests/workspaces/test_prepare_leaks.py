"""prepare refuses a workspace that holds a copy of its goal (or, with --allow-leaks,
writes it and says so), and gives a task with only paper.json the paper.pdf it promises."""

from __future__ import annotations

import shutil
from pathlib import Path

import pymupdf

from lmr_author.domain.benchmark import load_benchmark
from lmr_author.generation.prompt import Setting
from lmr_author.workspaces import prepare_workspaces
from tests.leaks.support import FIXTURES, RENAMED, SAME_NAME_DIFFERENT, published_task, repo
from tests.support.fuzz import run_cli


def _leaky_task(root: Path) -> Path:
    bench = root / "bench"
    task = published_task(bench)
    (repo(task) / "paper.pdf").write_bytes(_pdf("A paper."))
    (repo(task) / "scoring.py").write_text(RENAMED)
    return bench


def _pdf(text: str) -> bytes:
    document = pymupdf.open()
    document.new_page().insert_text((72, 72), text)
    return bytes(document.tobytes())


def test_a_workspace_with_a_copy_is_not_written(tmp_path: Path) -> None:
    bench = _leaky_task(tmp_path)
    skipped: list[str] = []
    manifest = prepare_workspaces(
        load_benchmark(bench).tasks,
        Setting.FULL,
        tmp_path / "out",
        benchmark=bench,
        on_skipped=skipped.append,
    )
    assert manifest.workspaces == []
    [line] = skipped
    assert "scorer/scoring.py (lines 2-10): Scorer.combine, similarity 1.00" in line
    assert "--allow-leaks" in line
    assert not (tmp_path / "out" / "87-Weighted").exists()


def test_allow_leaks_writes_it_and_names_each_copy(tmp_path: Path) -> None:
    bench = _leaky_task(tmp_path)
    notes: list[str] = []
    manifest = prepare_workspaces(
        load_benchmark(bench).tasks,
        Setting.FULL,
        tmp_path / "out",
        benchmark=bench,
        allow_leaks=True,
        on_note=notes.append,
    )
    assert len(manifest.workspaces) == 1
    assert any("scorer/scoring.py" in note for note in notes)


def test_what_the_setting_leaves_out_is_no_leak(tmp_path: Path) -> None:
    bench = _leaky_task(tmp_path)
    (repo(bench / "87-Weighted") / "__pycache__").mkdir()
    shutil.copy(
        FIXTURES / "golden.cpython-310.pyc",
        repo(bench / "87-Weighted") / "__pycache__" / "metrics.cpython-310.pyc",
    )
    # paper-and-goal-file gives only the goal file: the copy in scoring.py and the
    # bytecode (never copied: __pycache__) stay behind.
    manifest = prepare_workspaces(
        load_benchmark(bench).tasks, Setting.PAPER_AND_GOAL_FILE, tmp_path / "out", benchmark=bench
    )
    assert len(manifest.workspaces) == 1


def test_paper_json_alone_becomes_the_promised_paper_pdf(tmp_path: Path) -> None:
    bench = tmp_path / "bench"
    task = published_task(bench)
    (repo(task) / "paper.json").write_text('{"1": "Weighted scoring: a mean of values."}')
    outcome = run_cli(["prepare", str(bench), "--out", str(tmp_path / "out")])
    assert outcome.code == 0, outcome.err
    assert "wrote one from paper.json" in outcome.err
    pdf = tmp_path / "out" / task.name / "1" / "paper.pdf"
    with pymupdf.open(pdf) as document:
        assert "Weighted scoring: a mean of values." in document[0].get_text()


def test_only_the_workspaces_own_goal_counts(tmp_path: Path) -> None:
    import json

    bench = _leaky_task(tmp_path)
    task = bench / "87-Weighted"
    (repo(task) / "scoring.py").unlink()
    # A second implementation whose goal (a weighted median) has a copy in the
    # repository; the first implementation's workspace holds no copy of its own goal.
    median = SAME_NAME_DIFFERENT.replace("def weighted_mean", "def weighted_median")
    info = json.loads((task / "info.json").read_text())
    second = dict(info["implementations"][0], index=2, goal_function="weighted_median")
    second["goal_file"] = "median.py"
    second["golden_file"] = "golden_files/median_golden.py"
    info["implementations"].append(second)
    (task / "info.json").write_text(json.dumps(info))
    (task / "golden_files" / "median_golden.py").write_text(median)
    stub = 'def weighted_median(values, weights):\n    """Not the goal: ..."""\n    pass\n'
    (repo(task) / "median.py").write_text(stub)
    (repo(task) / "stats.py").write_text(median.replace("weighted_median", "wmedian"))
    skipped: list[str] = []
    manifest = prepare_workspaces(
        load_benchmark(bench).tasks,
        Setting.FULL,
        tmp_path / "out",
        benchmark=bench,
        on_skipped=skipped.append,
    )
    assert [entry.implementation for entry in manifest.workspaces] == [1], skipped
    assert len(skipped) == 1 and skipped[0].startswith("87-Weighted#2")
