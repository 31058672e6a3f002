"""Malformed notebooks, garbage bytecode and broken .git objects: never a traceback."""

from __future__ import annotations

import zlib
from pathlib import Path

import git
from hypothesis import given
from hypothesis import strategies as st

from tests.leaks.support import GOLDEN, MASKED, copies_of, published_task, repo
from tests.support.fuzz import FUZZ, assert_no_traceback, malformed_bytes, run_cli, wrong_json


@FUZZ
@given(notebook=st.one_of(malformed_bytes, wrong_json), pyc=st.binary(max_size=200))
def test_malformed_notebooks_and_bytecode_are_no_copies(
    tmp_path_factory: object, notebook: bytes, pyc: bytes
) -> None:
    root = tmp_path_factory.mktemp("task")  # type: ignore[attr-defined]
    task = published_task(root)
    (repo(task) / "broken.ipynb").write_bytes(notebook)
    (repo(task) / "__pycache__").mkdir()
    (repo(task) / "__pycache__" / "metrics.cpython-310.pyc").write_bytes(b"\x6f\x0d\r\n" + pyc)
    (repo(task) / "__pycache__" / "metrics_golden.cpython-311.pyc").write_bytes(pyc)
    outcome = run_cli(["validate", str(task), "--select", "answer-leak"])
    assert_no_traceback(outcome)
    # A golden-named file is the answer whatever its bytes: always reported.
    assert "metrics_golden.cpython-311.pyc" in outcome.out


def _history(task: Path) -> git.Repo:
    source = git.Repo.init(repo(task))
    with source.config_writer() as config:
        config.set_value("user", "name", "Test")
        config.set_value("user", "email", "test@example.invalid")
    (repo(task) / "metrics.py").write_text(GOLDEN)
    source.index.add(["metrics.py"])
    source.index.commit("the paper's code")
    (repo(task) / "metrics.py").write_text(MASKED)
    source.index.add(["metrics.py"])
    source.index.commit("masked")
    return source


@FUZZ
@given(garbage=st.binary(max_size=120), cut=st.integers(0, 200))
def test_broken_git_objects_are_skipped(tmp_path_factory: object, garbage: bytes, cut: int) -> None:
    root = tmp_path_factory.mktemp("task")  # type: ignore[attr-defined]
    task = published_task(root)
    _history(task)
    objects = sorted((repo(task) / ".git" / "objects").glob("??/*"))
    # Break every object but one blob: truncate, replace, or compress garbage.
    for number, path in enumerate(objects):
        data = path.read_bytes()
        path.chmod(0o644)
        if number % 3 == 0:
            path.write_bytes(data[: cut % max(1, len(data))])
        elif number % 3 == 1:
            path.write_bytes(zlib.compress(b"blob 99999\x00" + garbage))
        else:
            path.write_bytes(garbage)
    (repo(task) / ".git" / "objects" / "pack").mkdir(exist_ok=True)
    (repo(task) / ".git" / "objects" / "pack" / "pack-0.idx").write_bytes(garbage)
    (repo(task) / ".git" / "objects" / "pack" / "pack-0.pack").write_bytes(garbage)
    copies_of(task)  # never raises
    assert_no_traceback(run_cli(["validate", str(task), "--select", "answer-leak"]))


def test_a_pack_holds_history_too(tmp_path: Path) -> None:
    task = published_task(tmp_path)
    source = _history(task)
    source.git.gc("--aggressive", "--prune=now")
    assert not list((repo(task) / ".git" / "objects").glob("??/*"))
    [copy] = [c for c in copies_of(task) if c.level]
    assert copy.kind == "git" and "(metrics.py)" in copy.where


def test_fifos_and_links_anywhere_never_block_or_lead_out(tmp_path: Path) -> None:
    import os
    import threading

    task = published_task(tmp_path)
    _history(task)
    outside = tmp_path / "outside.py"
    outside.write_text(GOLDEN)
    for name in ("copy.py", "nb.ipynb", "paper.json", "x.py.orig"):
        os.mkfifo(repo(task) / name)
    (repo(task) / "__pycache__").mkdir()
    os.mkfifo(repo(task) / "__pycache__" / "metrics.cpython-310.pyc")
    (repo(task) / "__pycache__" / "metrics.cpython-311.pyc").symlink_to(outside)
    os.mkfifo(repo(task) / ".git" / "objects" / "ab")
    result: list[object] = []
    worker = threading.Thread(target=lambda: result.append(copies_of(task)), daemon=True)
    worker.start()
    worker.join(timeout=60)
    assert result, "reading the task blocked on a FIFO"
    assert [c for c in result[0] if c.level] == []  # type: ignore[attr-defined]
