"""What the poller makes of an array's claims and of the queue, without a cluster: a run
is read back once, retried when its worker died, taken back when no worker got to it,
and never both run and submitted again."""

from __future__ import annotations

from pathlib import Path

import pytest

from lmr_author.eval_loop.backend import RunCancelled
from lmr_author.executors import claims
from lmr_author.executors.slurm import poller as poller_module
from lmr_author.executors.slurm.pending import Array, Pending
from lmr_author.executors.slurm.poller import Poller, Progress
from lmr_author.executors.slurm.sbatch import Resources, SbatchOptions
from lmr_author.executors.wire import RemoteRun, Request, save_result
from lmr_author.runtime.infra_error import InfraError
from lmr_author.sandbox.run_result import ImplementationRun

RESOURCES = Resources(cpus=1, memory="1536M", time="16")


def _array(
    tmp_path: Path, runs: int, *, attempts: int = 1
) -> tuple[Poller, Array, list[Pending], list[Progress]]:
    progress: list[Progress] = []
    poller = Poller(
        "lmr-test",
        tmp_path,
        python="python",
        options=SbatchOptions(),
        retries=2,
        poll_s=0.1,
        on_progress=progress.append,
    )
    folder = tmp_path / "array-1"
    folder.mkdir(parents=True)
    pendings = []
    for index in range(runs):
        request = Request(
            task_path="t",
            implementation=1,
            candidate_path=None,
            candidate_sha256=None,
            runtime="docker",
            base_image=None,
            timeout_s=None,
            protocol="auto",
            image_id="sha256:0",
            settings={},
            result_path=str(tmp_path / f"r{index}.result.json"),
        )
        pending = Pending(request, tmp_path / f"r{index}.request.json", RESOURCES)
        pending.attempts = attempts
        pendings.append(pending)
    array = Array("77", folder, dict(enumerate(pendings)))
    for index, pending in enumerate(pendings):
        pending.array, pending.index = array, index
    poller._live.append(array)
    return poller, array, pendings, progress


def _finish(pending: Pending) -> ImplementationRun:
    run = ImplementationRun(verdicts=[], image_id="sha256:0", infra_error=None)
    save_result(pending.result_path, run)
    return run


@pytest.fixture(autouse=True)
def _no_scancel(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    trimmed: list[str] = []
    monkeypatch.setattr(poller_module, "scancel_pending", trimmed.append)
    return trimmed


def test_a_claimed_run_is_read_back_once_its_result_is_there(tmp_path: Path) -> None:
    poller, array, [pending], progress = _array(tmp_path, 1)
    poller._collect({"77_0": "R"})
    assert progress[-1] == Progress(queued=1, running=0, submitted_jobs=0)
    claims.claim(array.folder, 0, "77_0")
    poller._collect({"77_0": "R"})
    assert not pending.future.done() and pending.element == "77_0"
    assert progress[-1] == Progress(queued=0, running=1, submitted_jobs=0)
    run = _finish(pending)
    poller._collect({"77_0": "R"})
    assert pending.future.result() == run
    assert not poller.unfinished()


def test_a_run_whose_worker_died_is_submitted_again_then_given_up(tmp_path: Path) -> None:
    poller, array, [pending], _ = _array(tmp_path, 1)
    claims.claim(array.folder, 0, "77_0")
    poller._collect({"77_0": "R"})
    poller._collect({})  # one poll late: a result may still show up
    assert pending in poller._live[0].open.values()
    poller._collect({})
    assert poller._waiting == [pending] and not pending.future.done()
    assert poller._keep_logs  # its worker's log explains why

    poller, array, [pending], _ = _array(tmp_path / "again", 1, attempts=3)
    claims.claim(array.folder, 0, "77_0")
    poller._collect({})
    poller._collect({})
    with pytest.raises(InfraError, match=r"77_0 ended without a result 3 time\(s\).*0\.out"):
        pending.future.result(timeout=0)
    assert poller._waiting == []


def test_runs_no_worker_reached_are_taken_back_without_counting_against_them(
    tmp_path: Path,
) -> None:
    poller, array, pendings, _ = _array(tmp_path, 3)
    claims.claim(array.folder, 0, "77_0")
    _finish(pendings[0])
    poller._collect({"77_0": "R"})  # the worker ran one run, then its walltime ran out
    poller._collect({})
    poller._collect({})
    assert poller._waiting == pendings[1:]
    assert [claims.holder(array.folder, i) for i in (1, 2)] == [claims.WITHDRAWN] * 2
    assert [pending.attempts for pending in pendings[1:]] == [0, 0]
    assert not poller._keep_logs


def test_a_walltime_that_splits_an_array_says_so(tmp_path: Path) -> None:
    poller, array, pendings, _ = _array(tmp_path, 3)
    notes: list[str] = []
    poller.on_note = notes.append
    claims.claim(array.folder, 0, "77_0")
    _finish(pendings[0])
    for alive in ({"77_0": "R"}, {}, {}, {}):
        poller._collect(alive)
    assert notes == [
        "Slurm array 77: its workers' walltime (--time) ran out before 2 of its runs "
        "started; they go in a new array (a longer --time lets each worker run more, in "
        "fewer arrays)"
    ]


def test_a_run_records_its_queue_time_apart(tmp_path: Path) -> None:
    poller, array, [pending], _ = _array(tmp_path, 1)
    pending.submitted_unix = 1000.0
    claims.claim(array.folder, 0, "77_0")
    run = ImplementationRun(verdicts=[], image_id="sha256:0", infra_error=None)
    save_result(pending.result_path, run, started_unix=1012.5, finished_unix=1014.0)
    poller._collect({"77_0": "R"})
    got = pending.future.result()
    assert isinstance(got, RemoteRun)
    assert (got.queued_s, got.started_unix, got.finished_unix) == (12.5, 1012.5, 1014.0)


def test_an_array_whose_workers_all_failed_counts_an_attempt(tmp_path: Path) -> None:
    poller, _, pendings, _ = _array(tmp_path, 2, attempts=3)
    poller._collect({})
    poller._collect({})
    for pending in pendings:
        with pytest.raises(InfraError, match=r"77 ended without a result 3 time\(s\)"):
            pending.future.result(timeout=0)
    assert poller._keep_logs


def test_a_run_a_late_worker_claims_first_is_not_also_submitted_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    poller, array, [pending], _ = _array(tmp_path, 1)
    poller._collect({})

    def late_worker(folder: Path, index: int, name: str) -> bool:
        claims.claim(folder, index, "77_0")  # got there between the look and the claim
        return False

    monkeypatch.setattr(poller_module, "claim", late_worker)
    poller._collect({})
    assert poller._waiting == [] and not pending.future.done()
    assert claims.holder(array.folder, 0) == "77_0"


def test_elements_not_started_once_every_run_is_claimed_are_cancelled(
    tmp_path: Path, _no_scancel: list[str]
) -> None:
    poller, array, _, _ = _array(tmp_path, 2)
    claims.claim(array.folder, 0, "77_0")
    poller._collect({"77_0": "R", "77_1": "PD"})
    assert _no_scancel == []  # run 1 still needs a worker
    claims.claim(array.folder, 1, "77_0")
    poller._collect({"77_0": "R", "77_1": "PD"})
    poller._collect({"77_0": "R", "77_1": "PD"})
    assert _no_scancel == ["77"]  # once


def test_cancelling_keeps_results_and_cancels_the_rest(tmp_path: Path) -> None:
    poller, _, pendings, _ = _array(tmp_path, 2)
    run = _finish(pendings[0])
    with poller._lock:
        poller._settle_cancelled()
    assert pendings[0].future.result() == run
    with pytest.raises(RunCancelled):
        pendings[1].future.result(timeout=0)
