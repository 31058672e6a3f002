"""What `strengthen` changes in a task folder, and how it puts an implementation back."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from lmr_author.authoring.strengthen import _name_extra_test, _restore, _swap_into_place
from lmr_author.authoring.strengthen_record import Call, ReplayPlan, write_replay
from lmr_author.domain import replay_codec
from lmr_author.domain.task import load_task
from lmr_author.domain.test_strength import content_hash
from tests.support.loose_tasks import write_loose_task


def _plan(value: float) -> ReplayPlan:
    inputs = replay_codec.document(replay_codec.encode({"args": [1.0, 2.0, 1.0], "kwargs": {}}))
    return ReplayPlan(
        3,
        "unit_test/replay_test_3.py",
        "metric",
        [Call("test call 1", inputs, replay_codec.dumps(value))],
    )


def test_a_failed_implementation_is_put_back_as_it_was(tmp_path: Path) -> None:
    original = write_loose_task(tmp_path / "a", goals=(3,))
    # The original was strengthened before: its replay test and info.json entry stay.
    write_replay(load_task(original), load_task(original).implementation(3), _plan(1.0))
    _name_extra_test(original, 3, "unit_test/replay_test_3.py")
    before = content_hash(original)
    scratch = tmp_path / "b" / original.name
    shutil.copytree(original, scratch)
    write_replay(load_task(scratch), load_task(scratch).implementation(3), _plan(2.0))
    info = json.loads((scratch / "info.json").read_text())
    info["implementations"][0]["mutation_score"] = {"mutants": 1}
    (scratch / "info.json").write_text(json.dumps(info))
    assert content_hash(scratch) != before
    task = load_task(original)
    _restore(task, scratch, task.implementation(3))
    assert content_hash(scratch) == before
    assert (
        "mutation_score"
        not in json.loads((scratch / "info.json").read_text())["implementations"][0]
    )


def test_the_swap_replaces_the_folder_whole(tmp_path: Path) -> None:
    target = write_loose_task(tmp_path / "bench", goals=(3,))
    scratch = tmp_path / "bench" / ".hold" / target.name
    shutil.copytree(target, scratch)
    (scratch / "marker").write_text("new")
    _swap_into_place(scratch, target)
    assert (target / "marker").read_text() == "new"
    assert sorted(p.name for p in (tmp_path / "bench" / ".hold").iterdir()) == []
