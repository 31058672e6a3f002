"""`MutantRunner`: an implementation's mutants split over the workers' containers."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from lmr_author.domain.task import Task
from lmr_author.images.task_images import ImageRef
from lmr_author.mutation import batched
from lmr_author.mutation.batched import MutantRunner
from lmr_author.sandbox.run_result import ImplementationRun
from lmr_author.sandbox.run_spec import RunSpec
from tests.support.sandbox_tasks import write_task


def test_each_workers_container_takes_every_nth_mutant_and_the_order_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    task: Task = write_task(tmp_path)
    impl = task.implementations[0]
    image = ImageRef(tag="t:1", image_id="sha256:1", workdir="/w", built=False)
    specs = [RunSpec(task, impl, f"m{n}".encode(), image, label=f"mutant {n}") for n in range(7)]
    # Another implementation's (here: another protocol's) mutants never share a batch.
    specs.append(dataclasses.replace(specs[0], protocol="exit-code", label="other"))
    batches: list[list[str]] = []
    lock = threading.Lock()

    def fake(runs: Sequence[RunSpec], **_: Any) -> list[ImplementationRun]:
        with lock:
            batches.append([run.label for run in runs])
        return [ImplementationRun(verdicts=[], image_id=run.label) for run in runs]

    monkeypatch.setattr(batched, "run_batched", fake)
    heard: list[str] = []
    outcomes = MutantRunner(workers=3).run_all(specs, heard.append)
    assert [outcome.image_id for outcome in outcomes] == [spec.label for spec in specs]
    assert sorted(batches) == sorted(
        [
            ["mutant 0", "mutant 3", "mutant 6"],
            ["mutant 1", "mutant 4"],
            ["mutant 2", "mutant 5"],
            ["other"],
        ]
    )
    assert sorted(heard) == sorted(spec.label for spec in specs)


def test_ctrl_c_kills_the_batches_containers_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import _thread

    from lmr_author.sandbox import housekeeping

    task: Task = write_task(tmp_path)
    image = ImageRef(tag="t:1", image_id="sha256:1", workdir="/w", built=False)
    specs = [RunSpec(task, task.implementations[0], b"m", image, label="m")]
    killed = threading.Event()

    def running(runs: Sequence[RunSpec], **_: Any) -> list[ImplementationRun]:
        _thread.interrupt_main()  # Ctrl-C while the batch runs
        assert killed.wait(30), "the containers were not killed"
        return [ImplementationRun(verdicts=[], image_id="", infra_error="killed")]

    def kill(*, client: Any) -> int:
        killed.set()
        return 1

    monkeypatch.setattr(batched, "run_batched", running)
    monkeypatch.setattr(housekeeping, "kill_own_runs", kill)
    with pytest.raises(KeyboardInterrupt):
        MutantRunner(client=object(), workers=1).run_all(specs)
    assert killed.is_set()
