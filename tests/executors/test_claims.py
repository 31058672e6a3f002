"""The claim protocol of a job array's runs: each run is claimed once, whoever races."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import pytest

from lmr_author.executors.claims import WITHDRAWN, claim, claim_next, holder


def test_a_run_is_claimed_once_and_the_claim_names_its_holder(tmp_path: Path) -> None:
    assert holder(tmp_path, 0) is None
    assert claim(tmp_path, 0, "12_0")
    assert not claim(tmp_path, 0, "12_1")
    assert holder(tmp_path, 0) == "12_0"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["0.claim"]  # no scratch left


def test_two_claimers_that_both_saw_the_run_free_do_not_both_get_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The race a check-then-create would lose: both looked before either wrote.
    monkeypatch.setattr(Path, "exists", lambda self: False)
    assert claim_next(tmp_path, 1, 0, "12_0") == 0
    assert claim_next(tmp_path, 1, 0, "12_1") is None
    assert holder(tmp_path, 0) == "12_0"


def test_workers_start_on_their_own_run_and_then_take_any_free_one(tmp_path: Path) -> None:
    assert claim_next(tmp_path, 4, 2, "w2") == 2
    assert claim_next(tmp_path, 4, 2, "w2") == 3
    assert claim_next(tmp_path, 4, 2, "w2") == 0
    assert claim(tmp_path, 1, WITHDRAWN)  # the submitter took it back
    assert claim_next(tmp_path, 4, 0, "w0") is None
    assert [holder(tmp_path, i) for i in range(4)] == ["w2", WITHDRAWN, "w2", "w2"]


def _claim_all(folder: str, count: int, name: str, start: object) -> list[int]:
    start.wait()  # type: ignore[attr-defined]
    taken = []
    while (index := claim_next(Path(folder), count, 0, name)) is not None:
        taken.append(index)
    return taken


def test_racing_processes_share_the_runs_without_a_run_claimed_twice(tmp_path: Path) -> None:
    count, workers = 300, 4
    context = multiprocessing.get_context("spawn")
    with context.Manager() as manager:
        start = manager.Event()
        with context.Pool(workers) as pool:
            results = [
                pool.apply_async(_claim_all, (str(tmp_path), count, f"w{i}", start))
                for i in range(workers)
            ]
            start.set()
            taken = [result.get(timeout=120) for result in results]
    everything = [index for indices in taken for index in indices]
    assert sorted(everything) == list(range(count))  # each once, none lost
    for worker, indices in enumerate(taken):
        assert all(holder(tmp_path, index) == f"w{worker}" for index in indices)
