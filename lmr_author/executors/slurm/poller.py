"""The poller thread: submits what is waiting as job arrays, polls ``squeue``, reads
results back, resubmits lost elements, and settles everything on cancellation.

Runs with equal `Resources` waiting at one poll go in ONE array (split only at the
cluster's ``MaxArraySize``), throttled with ``%N``: the scheduler, not this process,
decides how many run at once.
"""

from __future__ import annotations

import shutil
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from lmr_author.eval_loop.backend import ImplementationResult, RunCancelled
from lmr_author.executors.slurm.cli import (
    SlurmError,
    max_array_size,
    partition_cpus,
    scancel_job,
    scancel_name,
    slurm_command,
    squeue_elements,
)
from lmr_author.executors.slurm.pending import MISSES_BEFORE_LOST, Pending, retry_or_fail
from lmr_author.executors.slurm.sbatch import (
    Resources,
    SbatchOptions,
    array_argv,
    default_in_flight,
    write_array,
)
from lmr_author.executors.wire import load_result
from lmr_author.runtime.infra_error import InfraError

#: Seconds of squeue failing in a row before the waiting runs give up (controller gone).
SQUEUE_PATIENCE_S = 120.0
#: Seconds ``close`` waits for cancelled or completing jobs to leave the queue.
CLOSE_PATIENCE_S = 30.0
#: squeue state codes of an element that holds its allocation.
RUNNING_STATES = ("R", "CG", "CF")


@dataclass(frozen=True)
class Progress:
    """What the cluster is doing with this evaluation's runs."""

    queued: int
    running: int
    submitted_jobs: int


class Poller:
    """One evaluation's jobs (all named ``name``) and the thread that watches them."""

    def __init__(
        self,
        name: str,
        folder: Path,
        *,
        python: str,
        options: SbatchOptions,
        retries: int,
        poll_s: float,
        on_progress: Callable[[Progress], None] | None = None,
    ) -> None:
        self.name = name
        self.folder = folder
        self.python = python
        self.options = options
        self.retries = retries
        self.poll_s = poll_s
        self.on_progress = on_progress
        self._lock = threading.Condition()
        self._waiting: list[Pending] = []
        self._outstanding: dict[str, Pending] = {}
        #: Every array submitted (``sbatch`` calls), in order.
        self.jobs: list[str] = []
        self._cancelled = False
        self._closed = False
        self._keep_logs = False
        self._arrays = 0
        self._thread: threading.Thread | None = None
        self._last_progress: Progress | None = None
        self._max_array: int | None = None
        self._cluster_cpus: int | None = None

    @property
    def cancelled(self) -> bool:
        with self._lock:
            return self._cancelled

    def add(self, pendings: list[Pending]) -> None:
        """Hand ``pendings`` over: they go in at the next poll, together."""
        if not pendings:
            return
        with self._lock:
            if self._cancelled:
                for pending in pendings:
                    pending.settle(RunCancelled())
                return
            self._waiting.extend(pendings)
            if self._thread is None:
                self._thread = threading.Thread(target=self._poll, name="lmr-slurm", daemon=True)
                self._thread.start()
            self._lock.notify_all()

    def unfinished(self) -> bool:
        with self._lock:
            return bool(self._waiting or self._outstanding)

    def interrupt(self) -> None:
        """Cancel every job (scancel by name); runs whose result is there are kept."""
        with self._lock:
            self._cancelled = True
            self._lock.notify_all()
        scancel_name(self.name)

    def close(self) -> None:
        """Stop the thread; no job outlives this; the shared folder goes unless a run
        failed on a node (its job log explains it)."""
        if self.unfinished():  # the pool stopped early (an error)
            self.interrupt()
        with self._lock:
            self._closed = True
            self._lock.notify_all()
            thread = self._thread
        if thread is not None:
            thread.join()
        if self.jobs:
            scancel_name(self.name)  # nothing of ours stays queued, whatever happened
            self._wait_gone()
        if not self._keep_logs:
            shutil.rmtree(self.folder, ignore_errors=True)
            if self.folder.exists():  # a job's output file landed during the removal
                self._wait_gone()
                shutil.rmtree(self.folder, ignore_errors=True)

    def _wait_gone(self, patience_s: float = CLOSE_PATIENCE_S) -> None:
        """Wait (bounded) until squeue lists none of our jobs: a job still completing
        (its worker exiting after writing its result) is not left behind us."""
        deadline = time.monotonic() + patience_s
        while time.monotonic() < deadline:
            try:
                if not squeue_elements(self.name):
                    return
            except SlurmError:
                return  # the controller is gone: nothing more to wait for here
            time.sleep(self.poll_s)

    # --- the thread ----------------------------------------------------------------------

    def _poll(self) -> None:
        try:
            self._loop()
        except Exception as error:  # a bug or a full disk: no run may wait forever
            self._fail_all(InfraError(f"the Slurm poller failed: {error}"))
            scancel_name(self.name)

    def _loop(self) -> None:
        failing_since: float | None = None
        while True:
            with self._lock:
                if self._closed and not self._waiting and not self._outstanding:
                    return
                if self._cancelled:
                    self._settle_cancelled()
                    if self._closed:
                        return
                self._lock.wait(self.poll_s)  # woken at once by `add`
                batch, self._waiting = self._waiting, []
            for resources in dict.fromkeys(pending.resources for pending in batch):
                group = [pending for pending in batch if pending.resources == resources]
                size = self._array_size()
                for start in range(0, len(group), size):
                    self._submit(group[start : start + size], resources)
            try:
                alive = squeue_elements(self.name)
            except SlurmError as error:
                failing_since = failing_since or time.monotonic()
                if time.monotonic() - failing_since > SQUEUE_PATIENCE_S:
                    self._fail_all(error)
                continue
            failing_since = None
            self._collect(alive)

    def _array_size(self) -> int:
        if self._max_array is None:
            self._max_array = max_array_size()
        return self._max_array

    def _throttle(self, resources: Resources) -> int:
        if self.options.max_in_flight is not None:
            return self.options.max_in_flight
        if self._cluster_cpus is None:
            self._cluster_cpus = partition_cpus(self.options.partition)
        return default_in_flight(self._cluster_cpus, resources.cpus)

    def _submit(self, batch: list[Pending], resources: Resources) -> None:
        """One job array for ``batch``; on failure, each run fails as infrastructure."""
        self._arrays += 1
        array = self.folder / f"array-{self._arrays}"
        try:
            write_array(array, [pending.request_path for pending in batch], self.python)
        except OSError as error:
            for pending in batch:
                pending.settle(InfraError(f"cannot write the Slurm job: {error}"))
            return
        argv = array_argv(
            name=self.name,
            folder=array,
            count=len(batch),
            throttle=self._throttle(resources),
            resources=resources,
            options=self.options,
        )
        if self.cancelled:  # Ctrl-C came while this batch was being written
            for pending in batch:
                pending.settle(RunCancelled())
            return
        try:
            job = slurm_command(argv).strip().split(";")[0]
        except SlurmError as error:
            for pending in batch:
                pending.settle(error)
            return
        with self._lock:
            self.jobs.append(job)
            cancelled = self._cancelled
        if cancelled:  # the scancel by name may have run before this job existed
            scancel_job(job)
        with self._lock:
            for position, pending in enumerate(batch):
                pending.attempts += 1
                pending.element = f"{job}_{position}"
                pending.misses = 0
                pending.log = array / f"{position}.out"
                self._outstanding[pending.element] = pending

    def _collect(self, alive: dict[str, str]) -> None:
        with self._lock:
            outstanding = list(self._outstanding.items())
        for element, pending in outstanding:
            if pending.result_path.exists():
                self._finish(element, pending, _read(pending, element))
            elif element not in alive:
                pending.misses += 1
                if pending.misses >= MISSES_BEFORE_LOST:
                    self._lost(element, pending)
            else:
                pending.misses = 0
        self._report(alive)

    def _lost(self, element: str, pending: Pending) -> None:
        """The element left the queue without a result: submit again, or give up."""
        with self._lock:
            # Its log explains a failure, unless our own scancel ended it (a Ctrl-C racing
            # this poll): then nothing is kept behind.
            self._keep_logs = self._keep_logs or not self._cancelled
            self._outstanding.pop(element, None)
            error = retry_or_fail(pending, self.retries)
            if error is None and not self._cancelled:
                self._waiting.append(pending)
                return
        pending.settle(error or RunCancelled())

    def _finish(
        self, element: str, pending: Pending, outcome: ImplementationResult | BaseException
    ) -> None:
        with self._lock:
            self._outstanding.pop(element, None)
        pending.settle(outcome)

    def _fail_all(self, error: BaseException) -> None:
        with self._lock:
            everything = list(self._outstanding.values()) + self._waiting
            self._outstanding, self._waiting = {}, []
        for pending in everything:
            pending.settle(error)

    def _settle_cancelled(self) -> None:
        """After scancel (lock held): keep the runs whose result is there, cancel the rest."""
        everything = list(self._outstanding.values()) + self._waiting
        self._outstanding, self._waiting = {}, []
        for pending in everything:
            outcome: ImplementationResult | BaseException = RunCancelled()
            if pending.result_path.exists():
                read = _read(pending, pending.element)
                if not isinstance(read, BaseException):
                    outcome = read
            pending.settle(outcome)

    def _report(self, alive: dict[str, str]) -> None:
        if self.on_progress is None:
            return
        running = sum(1 for state in alive.values() if state in RUNNING_STATES)
        progress = Progress(len(alive) - running, running, len(self.jobs))
        if progress != self._last_progress:
            self._last_progress = progress
            self.on_progress(progress)


def _read(pending: Pending, element: str) -> ImplementationResult | BaseException:
    try:
        return load_result(pending.result_path)
    except ValueError as error:
        return InfraError(f"Slurm job {element}: {error}")
