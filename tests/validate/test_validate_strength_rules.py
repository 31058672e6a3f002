"""extra-test-path, weak-tests and mutation-score-stale: from what the task stores."""

from __future__ import annotations

import json
from pathlib import Path

from lmr_author.domain.test_strength import StoredScore, content_hash
from lmr_author.validate.task_dir import validate_task_dir
from tests.support.loose_tasks import write_loose_task


def _set(task_dir: Path, **keys: object) -> None:
    info = json.loads((task_dir / "info.json").read_text())
    info["implementations"][0].update(keys)
    (task_dir / "info.json").write_text(json.dumps(info, indent=4))


def _rules(task_dir: Path, *names: str) -> list[object]:
    return [f for f in validate_task_dir(task_dir) if f.rule in names]


def _score(task_dir: Path, killed: int) -> dict[str, object]:
    survivors = tuple(f"{n:012x}" for n in range(10 - killed))
    return StoredScore(10, killed, 0, survivors, content_hash(task_dir)).to_json()


def test_a_weak_stored_score_names_strengthen(tmp_path: Path) -> None:
    task_dir = write_loose_task(tmp_path, goals=(3,))
    _set(task_dir, mutation_score=_score(task_dir, 2))
    [found] = _rules(task_dir, "weak-tests", "mutation-score-stale")
    assert found.rule == "weak-tests" and found.severity == "warning"  # type: ignore[attr-defined]
    assert "20% (2/10 killed)" in found.message  # type: ignore[attr-defined]
    assert "lmr-author strengthen" in found.hint  # type: ignore[attr-defined]


def test_a_strong_current_score_says_nothing(tmp_path: Path) -> None:
    task_dir = write_loose_task(tmp_path, goals=(3,))
    _set(task_dir, mutation_score=_score(task_dir, 9))
    assert _rules(task_dir, "weak-tests", "mutation-score-stale") == []


def test_a_score_of_other_content_is_stale_not_weak(tmp_path: Path) -> None:
    task_dir = write_loose_task(tmp_path, goals=(3,))
    _set(task_dir, mutation_score=_score(task_dir, 2))
    (task_dir / "Dockerfile").write_text((task_dir / "Dockerfile").read_text() + "\n")
    [found] = _rules(task_dir, "weak-tests", "mutation-score-stale")
    assert found.rule == "mutation-score-stale"  # type: ignore[attr-defined]
    assert "--measure-only" in found.hint  # type: ignore[attr-defined]


def test_extra_tests_must_exist_stay_inside_and_not_be_published_ones(tmp_path: Path) -> None:
    task_dir = write_loose_task(tmp_path, goals=(3,))
    (task_dir / "loosenet" / "unit_test" / "replay_test_3.py").write_text("")
    _set(task_dir, extra_unit_tests=["unit_test/replay_test_3.py"])
    assert _rules(task_dir, "extra-test-path") == []
    _set(
        task_dir,
        extra_unit_tests=[
            "unit_test/replay_test_9.py",
            "../../etc/passwd",
            "unit_test/unit_test_3.py",
        ],
    )
    found = _rules(task_dir, "extra-test-path")
    messages = [f.message for f in found]  # type: ignore[attr-defined]
    assert len(found) == 3
    assert "is not a file of the repository folder" in messages[0]
    assert "goes up with '..'" in messages[1]
    assert "the published loop runs" in messages[2]
