"""Reading a submission's goal file as data: what is refused, and that nothing is read."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from lmr_author.eval_loop import submission_files
from lmr_author.eval_loop.submission_files import read_member


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "sub" / "task" / "repo").mkdir(parents=True)
    (tmp_path / "host.txt").write_text("HOST SECRET")
    return tmp_path / "sub"


def test_a_regular_file_is_read(root: Path) -> None:
    (root / "task" / "repo" / "goal.py").write_text("x = 1\n")
    assert read_member(root, "task/repo/goal.py").data == b"x = 1\n"


def test_a_missing_file_is_no_submission(root: Path) -> None:
    assert read_member(root, "task/repo/goal.py").missing
    assert read_member(root, "nothing/here/goal.py").missing


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (
            lambda r: (r / "task/repo/goal.py").symlink_to(r.parent / "host.txt"),
            "goal file is a symlink",
        ),
        (lambda r: (r / "task/repo/goal.py").symlink_to("goal.py"), "goal file is a symlink"),
        (lambda r: os.mkfifo(r / "task/repo/goal.py"), "a FIFO"),
        (lambda r: (r / "task/repo/goal.py").mkdir(), "a folder"),
    ],
    ids=["symlink-to-host", "symlink-loop", "fifo", "folder"],
)
def test_special_entries_are_refused(root: Path, make: object, words: str) -> None:
    make(root)  # type: ignore[operator]
    found = read_member(root, "task/repo/goal.py")
    assert found.data is None and words in found.refused


def test_a_symlinked_folder_on_the_way_is_refused(root: Path, tmp_path: Path) -> None:
    (tmp_path / "elsewhere" / "repo").mkdir(parents=True)
    (tmp_path / "elsewhere" / "repo" / "goal.py").write_text("HOST SECRET")
    (root / "linked").symlink_to(tmp_path / "elsewhere")
    found = read_member(root, "linked/repo/goal.py")
    assert found.refused == "the folder linked is a symlink"


def test_paths_leaving_the_folder_are_refused(root: Path) -> None:
    assert "leaves the submission folder" in read_member(root, "../host.txt").refused
    assert "leaves the submission folder" in read_member(root, "/etc/passwd").refused


def test_oversized_files_are_refused_unread(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(submission_files, "MAX_GOAL_FILE_BYTES", 10)
    (root / "task/repo/goal.py").write_bytes(b"x" * 11)
    assert "larger than" in read_member(root, "task/repo/goal.py").refused
