"""Repository metrics on the worked example of docs/metrics.md and on the sample tasks."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import pytest

from lmr_author.domain.task import find_task_dirs, load_task
from lmr_author.reporting.repo_metrics import (
    code_lines,
    implementation_metrics,
    tree_metrics,
)
from lmr_author.util.errors import UserError

BENCHMARK = Path(__file__).resolve().parents[2] / "benchmark"

GOLDEN = '''\
"""Module docstring."""

import math
# a comment

class Loss:
    def apply(self, x):
        """Doc

        more."""
        # comment
        y = (x +
             1)

        return y

def other():
    pass
'''


def make_tree(root: Path) -> None:
    """The worked example of docs/metrics.md."""
    files = [
        "paper.pdf",
        "paper.json",
        "unit_test/unit_test_1.py",
        "unit_test/fixtures/a.json",
        "unit_test_2/unit_test_2.py",
        ".git/HEAD",
        ".env",
        "README.md",
        "setup.py",
        "pkg/__init__.py",
        "pkg/model.py",
        "pkg/__pycache__/model.cpython-311.pyc",
        "pkg/losses/dpo.py",
        "scripts/train.py",
    ]
    for name in files:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x = 1\n", encoding="utf-8")


def test_worked_example(tmp_path: Path) -> None:
    make_tree(tmp_path)
    metrics = tree_metrics(tmp_path)
    assert (metrics.nodes, metrics.folders, metrics.files) == (9, 3, 6)
    assert metrics.avg_dir_depth == pytest.approx(15 / 9, abs=1e-12)
    assert metrics.avg_branch_factor == pytest.approx(3 / 4, abs=1e-12)
    leaves = [1, 1, 2, 2, 3, 2]
    mean = sum(leaves) / len(leaves)
    spread = math.sqrt(sum((d - mean) ** 2 for d in leaves) / len(leaves))
    assert metrics.directory_imbalance == pytest.approx(spread / mean, abs=1e-12)
    assert metrics.directory_imbalance == pytest.approx(0.374828, abs=1e-6)


def test_empty_folders_are_leaves_and_links_are_not_followed(tmp_path: Path) -> None:
    (tmp_path / "a" / "empty").mkdir(parents=True)
    (tmp_path / "a" / "f.py").write_text("", encoding="utf-8")
    os.symlink(tmp_path / "a", tmp_path / "link")
    metrics = tree_metrics(tmp_path)
    # a(1), link(1), a/empty(2), a/f.py(2); folders a and a/empty, link is a leaf
    assert (metrics.nodes, metrics.folders, metrics.files) == (4, 2, 2)
    assert metrics.avg_dir_depth == pytest.approx(6 / 4)
    # root has one subfolder (a), a has one (empty); root and a have children
    assert metrics.avg_branch_factor == pytest.approx(2 / 2)


def test_a_flat_repository_has_branch_factor_zero(tmp_path: Path) -> None:
    (tmp_path / "main.py").write_text("", encoding="utf-8")
    metrics = tree_metrics(tmp_path)
    assert (metrics.avg_dir_depth, metrics.avg_branch_factor, metrics.directory_imbalance) == (
        1.0,
        0.0,
        0.0,
    )


def test_empty_or_missing_repository_is_a_user_error(tmp_path: Path) -> None:
    (tmp_path / "paper.pdf").write_bytes(b"%PDF")
    with pytest.raises(UserError, match="holds no files"):
        tree_metrics(tmp_path)
    with pytest.raises(UserError, match="does not exist"):
        tree_metrics(tmp_path / "missing")


def test_source_lines_skip_blanks_and_comments_but_count_docstrings() -> None:
    # lines 1, 3, 6-10, 12-13, 15, 17-18
    assert sorted(code_lines(GOLDEN)) == [1, 3, 6, 7, 8, 9, 10, 12, 13, 15, 17, 18]


def write_task(root: Path, golden: str) -> Path:
    task = root / "01-Toy"
    make_tree(task / "toy")
    (task / "golden_files").mkdir()
    (task / "golden_files" / "loss_golden.py").write_text(golden, encoding="utf-8")
    info = {
        "instance_id": 1,
        "folder_name": "01-Toy",
        "repo_folder_name": "toy",
        "implementations": [
            {
                "index": 1,
                "instruction": "Implement apply.",
                "goal_file": "pkg/model.py",
                "goal_function": "apply",
                "class_name": "Loss",
                "golden_file": "golden_files/loss_golden.py",
                "unit_test_file": "unit_test/unit_test_1.py",
            }
        ],
    }
    (task / "info.json").write_text(json.dumps(info), encoding="utf-8")
    return task


def test_implementation_metrics_of_a_task(tmp_path: Path) -> None:
    task = load_task(write_task(tmp_path, GOLDEN))
    [metrics] = implementation_metrics(task)
    assert (metrics.task, metrics.index) == ("01-Toy", 1)
    assert (metrics.goal_file_sloc, metrics.goal_function_sloc) == (12, 7)
    assert metrics.avg_dir_depth == pytest.approx(15 / 9)
    assert metrics.predictors()["goal_function_length"] == 12.0


def test_broken_golden_files_are_user_errors(tmp_path: Path) -> None:
    task = load_task(write_task(tmp_path, "def apply(:\n"))
    with pytest.raises(UserError):
        implementation_metrics(task)
    (task.path / "golden_files" / "loss_golden.py").unlink()
    with pytest.raises(UserError, match="golden file does not exist"):
        implementation_metrics(task)
    (task.path / "golden_files" / "loss_golden.py").write_text("x = 1\n", encoding="utf-8")
    with pytest.raises(UserError, match="apply"):
        implementation_metrics(task)


@pytest.mark.parametrize("task_dir", find_task_dirs(BENCHMARK), ids=lambda p: p.name)
def test_every_sample_task_measures(task_dir: Path) -> None:
    task = load_task(task_dir)
    for metrics in implementation_metrics(task):
        assert metrics.avg_dir_depth >= 1.0
        assert metrics.avg_branch_factor >= 0.0
        assert metrics.directory_imbalance >= 0.0
        assert 0 < metrics.goal_function_sloc < metrics.goal_file_sloc
