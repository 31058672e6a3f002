"""An array element's worker: it claims run after run of its array, runs each once, and
stops claiming when its walltime could not hold another run."""

from __future__ import annotations

from pathlib import Path

import pytest

from lmr_author.executors import worker
from lmr_author.executors.claims import claim, holder
from lmr_author.executors.wire import Request, load_result, sha256
from lmr_author.executors.worker import run_array


def _array(tmp_path: Path, runs: int) -> Path:
    """An array whose runs end at once on the node (their candidate changed: an
    infrastructure error written as the result, no container)."""
    folder = tmp_path / "array-1"
    folder.mkdir()
    candidate = tmp_path / "c.py"
    candidate.write_bytes(b"def f():\n    return 1\n")
    for index in range(runs):
        request = Request(
            task_path=str(tmp_path / "no-task"),
            implementation=1,
            candidate_path=str(candidate),
            candidate_sha256=sha256(b"what was submitted"),
            runtime="docker",
            base_image=None,
            timeout_s=None,
            protocol="auto",
            image_id="sha256:abc",
            settings={},
            result_path=str(tmp_path / f"r{index}.result.json"),
        )
        request.save(tmp_path / f"r{index}.request.json")
        (folder / f"{index}.json").symlink_to(tmp_path / f"r{index}.request.json")
    return folder


def _environ(element: int) -> dict[str, str]:
    return {"SLURM_ARRAY_JOB_ID": "77", "SLURM_ARRAY_TASK_ID": str(element)}


def test_a_worker_runs_every_free_run_of_its_array_once(tmp_path: Path) -> None:
    folder = _array(tmp_path, 5)
    claim(folder, 3, "77_1")  # another worker's
    assert run_array(folder, 5, 60.0, _environ(0)) == 0
    assert [holder(folder, i) for i in range(5)] == ["77_0", "77_0", "77_0", "77_1", "77_0"]
    for index in (0, 1, 2, 4):
        assert "changed after submission" in str(
            load_result(tmp_path / f"r{index}.result.json").infra_error
        )
    assert not (tmp_path / "r3.result.json").exists()  # not this worker's to run


def test_a_worker_stops_claiming_when_its_walltime_cannot_hold_another_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _array(tmp_path, 3)
    monkeypatch.setattr(worker, "time_left_s", lambda job, element: 100.0)
    assert run_array(folder, 3, 120.0, _environ(1)) == 0
    # The first run always (the job's walltime was asked for one), then no other.
    assert [holder(folder, i) for i in range(3)] == [None, "77_1", None]
    monkeypatch.setattr(worker, "time_left_s", lambda job, element: 1000.0)
    assert run_array(folder, 3, 120.0, _environ(2)) == 0
    assert [holder(folder, i) for i in range(3)] == ["77_2", "77_1", "77_2"]


def test_a_run_settled_meanwhile_is_skipped_not_a_crash(tmp_path: Path) -> None:
    folder = _array(tmp_path, 2)
    (tmp_path / "r0.request.json").unlink()  # the submitter cancelled it
    assert run_array(folder, 2, 60.0, _environ(0)) == 0
    assert not (tmp_path / "r0.result.json").exists()
    assert (tmp_path / "r1.result.json").exists()


def test_outside_an_array_the_worker_says_so(tmp_path: Path) -> None:
    assert run_array(_array(tmp_path, 1), 1, 60.0, {}) == 2
