"""Mutants scored in few containers, in parallel: the local `Runner` of a mutation test.

Mutants are ours, not a submission's: nothing in them is written to forge a verdict, so
one implementation's mutants share containers (`lmr_author.sandbox.batch`: the libraries
imported once, a fresh test process and candidate's process per mutant, their users
apart as in a normal run). ``workers`` containers run at once, each taking every
``workers``-th mutant (neighbours in the list mutate the same lines and cost alike).
A batch falls back to one container per mutant wherever the verdict rules ask for it
(`lmr_author.sandbox.batch.why_not_batched`); a hostile candidate never comes here.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

from lmr_author.sandbox.batch import run_batched
from lmr_author.sandbox.run_result import ImplementationRun
from lmr_author.sandbox.run_spec import RunSpec

if TYPE_CHECKING:
    import docker


class MutantRunner:
    """Runs a batch of mutants' specs in ``workers`` shared containers at once."""

    def __init__(self, client: docker.DockerClient | None = None, workers: int = 2) -> None:
        self.client = client
        self.workers = max(1, workers)

    def run_all(
        self, runs: Sequence[RunSpec], on_progress: Callable[[str], None] | None = None
    ) -> list[ImplementationRun]:
        """The outcomes of ``runs``, in order: each implementation's mutants split over
        the workers' containers; ``on_progress`` hears each mutant's label as its result
        comes (a mutant the batch hands to a normal run: once that run is done)."""
        outcomes: list[ImplementationRun | None] = [None] * len(runs)
        chunks: list[list[int]] = []
        for group in _groups(runs):
            count = min(self.workers, len(group))
            chunks += [group[start::count] for start in range(count)]

        told: set[int] = set()
        lock = threading.Lock()

        def tell(index: int) -> None:
            with lock:
                if index in told:
                    return
                told.add(index)
            if on_progress is not None and runs[index].label:
                on_progress(runs[index].label)

        def run(chunk: list[int]) -> None:
            done = run_batched(
                [runs[index] for index in chunk],
                client=self.client,
                on_done=lambda number: tell(chunk[number]),
            )
            for index, outcome in zip(chunk, done, strict=True):
                outcomes[index] = outcome
                tell(index)

        pool = ThreadPoolExecutor(max_workers=self.workers)
        try:
            for future in [pool.submit(run, chunk) for chunk in chunks]:
                future.result()
        except KeyboardInterrupt:
            self._stop()  # the batches end at once, and nothing starts after them
            raise
        finally:
            pool.shutdown(wait=True)
        found = [outcome for outcome in outcomes if outcome is not None]
        assert len(found) == len(runs)  # every chunk ran, or its error was raised
        return found

    def _stop(self) -> None:
        """Ctrl-C: kill this process's run containers, which no run replaces."""
        from lmr_author.runtime.engine import get_client
        from lmr_author.runtime.infra_error import InfraError
        from lmr_author.sandbox.housekeeping import kill_own_runs

        with contextlib.suppress(InfraError):  # no engine: no container to kill
            kill_own_runs(client=self.client or get_client())


def _groups(runs: Sequence[RunSpec]) -> list[list[int]]:
    """The indices of ``runs`` grouped by what a batch must share (all but the
    candidate), in their order of first appearance."""
    groups: dict[tuple[object, ...], list[int]] = {}
    for index, spec in enumerate(runs):
        key = (
            spec.task.path,
            spec.impl.index,
            spec.image,
            spec.limits,
            spec.protocol,
            id(spec.expected),
            spec.isolated,
            spec.test_reads,
        )
        groups.setdefault(key, []).append(index)
    return list(groups.values())
