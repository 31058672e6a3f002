"""A resumed eval keeps a stored run only while every test it ran is unchanged: the
extra tests (strengthen's replay test) and their expected outputs count too."""

from __future__ import annotations

import json
from pathlib import Path

from lmr_author.domain.task import load_task
from lmr_author.eval_loop.pool import task_fingerprint
from tests.support.loose_tasks import write_loose_task


def test_the_fingerprint_covers_the_replay_test_and_its_expected_outputs(tmp_path: Path) -> None:
    task_dir = write_loose_task(tmp_path, goals=(3,))
    replay = task_dir / "loosenet" / "unit_test" / "replay_test_3.py"
    replay.write_text("# replay\n")
    expected = task_dir / "expected_outputs" / "replay_test_3"
    expected.mkdir(parents=True)
    (expected / "weighted_error_1.json").write_text("{}")
    info = json.loads((task_dir / "info.json").read_text())
    info["implementations"][0]["extra_unit_tests"] = ["unit_test/replay_test_3.py"]
    (task_dir / "info.json").write_text(json.dumps(info))
    first = task_fingerprint(load_task(task_dir), 3)
    replay.write_text("# replay, recorded again\n")
    second = task_fingerprint(load_task(task_dir), 3)
    (expected / "weighted_error_1.json").write_text('{"changed": 1}')
    third = task_fingerprint(load_task(task_dir), 3)
    assert len({first, second, third}) == 3
