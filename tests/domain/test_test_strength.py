"""The stored test strength: its form in info.json, the content it was measured on, and
the tests eval runs (``extra_unit_tests``)."""

from __future__ import annotations

import json
from pathlib import Path

from lmr_author.domain.task import load_task
from lmr_author.domain.test_strength import (
    StoredScore,
    content_hash,
    parse_stored,
    strength_of,
)
from lmr_author.util.schema import schema_issues
from tests.support.loose_tasks import write_loose_task


def _stored(
    content: str, survivors: tuple[str, ...] = ("aaaaaaaaaaaa", "bbbbbbbbbbbb")
) -> StoredScore:
    return StoredScore(mutants=10, killed=7, not_run=1, survivors=survivors, content=content)


def _set(task_dir: Path, **keys: object) -> None:
    info = json.loads((task_dir / "info.json").read_text())
    info["implementations"][0].update(keys)
    (task_dir / "info.json").write_text(json.dumps(info, indent=4))


def test_a_stored_score_reads_back_and_its_schema_holds(tmp_path: Path) -> None:
    task_dir = write_loose_task(tmp_path, goals=(3,))
    stored = _stored(content_hash(task_dir))
    _set(task_dir, mutation_score=stored.to_json())
    info = json.loads((task_dir / "info.json").read_text())
    assert schema_issues(info) == []
    task = load_task(task_dir)
    strength = strength_of(task, task.implementation(3))
    assert strength is not None and strength.current
    assert (strength.counted, strength.stored.killed) == (9, 7)
    assert strength.describe() == "78% (7/9 killed, 1 not run)"
    assert not strength.weak


def test_equivalent_marks_made_later_count_without_a_new_run(tmp_path: Path) -> None:
    task_dir = write_loose_task(tmp_path, goals=(3,))
    _set(task_dir, mutation_score=_stored(content_hash(task_dir)).to_json())
    before = content_hash(task_dir)
    _set(task_dir, equivalent_mutants=[{"mutant": "aaaaaaaaaaaa", "reason": "same results"}])
    assert content_hash(task_dir) == before  # marks are not content
    task = load_task(task_dir)
    strength = strength_of(task, task.implementation(3))
    assert strength is not None and strength.current
    assert (strength.equivalent, strength.counted, strength.survivors) == (1, 8, ("bbbbbbbbbbbb",))


def test_the_score_goes_stale_when_a_file_changes_but_not_for_logs(tmp_path: Path) -> None:
    task_dir = write_loose_task(tmp_path, goals=(3,))
    _set(task_dir, mutation_score=_stored(content_hash(task_dir)).to_json())
    logs = task_dir / "loosenet" / "unit_test" / "logs"
    logs.mkdir()
    (logs / "unit_test_3.log").write_text("Test Passed")
    (task_dir / "loosenet" / "__pycache__").mkdir()
    (task_dir / "loosenet" / "__pycache__" / "metric.cpython-311.pyc").write_bytes(b"x")
    task = load_task(task_dir)
    strength = strength_of(task, task.implementation(3))
    assert strength is not None and strength.current
    test = task_dir / "loosenet" / "unit_test" / "unit_test_3.py"
    test.write_text(test.read_text() + "\n# changed\n")
    strength = strength_of(load_task(task_dir), task.implementation(3))
    assert strength is not None and not strength.current


def test_malformed_stored_scores_read_as_none() -> None:
    good = _stored("a" * 64).to_json()
    assert parse_stored(good) is not None
    for broken in (
        None,
        [],
        {**good, "killed": -1},
        {**good, "killed": True},
        {**good, "survivors": "aaaaaaaaaaaa"},
        {**good, "content": ""},
        {**good, "killed": 10},  # more killed and surviving than made
    ):
        assert parse_stored(broken) is None


def test_eval_runs_the_extra_tests_after_the_published_one(tmp_path: Path) -> None:
    task_dir = write_loose_task(tmp_path, goals=(3,))
    _set(
        task_dir,
        extra_unit_tests=[
            "unit_test/replay_test_3.py",
            "unit_test/replay_test_3.py",
            "unit_test/unit_test_3.py",
            "../outside.py",
            "/abs/test.py",
            "",
        ],
    )
    impl = load_task(task_dir).implementation(3)
    assert impl.test_files == ["unit_test/unit_test_3.py", "unit_test/replay_test_3.py"]
    _set(task_dir, extra_unit_tests="unit_test/replay_test_3.py")  # not a list: none
    assert load_task(task_dir).implementation(3).test_files == ["unit_test/unit_test_3.py"]
