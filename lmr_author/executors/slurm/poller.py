"""The poller thread: submits what is waiting as job arrays, polls ``squeue``, reads
results back, resubmits lost elements, and settles everything on cancellation.

Runs with equal `Resources` waiting at one poll go in ONE array of as many workers as
runs may be in flight (at most the cluster's ``MaxArraySize``): each worker
claims run after run (`claims`), so the scheduler, not this process, decides when they
run. A run is lost when the worker that claimed it leaves the queue without its result
(submitted again, up to ``retries`` times); a run no worker claimed before its array
ended is taken back by the submitter's own claim and submitted again.
"""

from __future__ import annotations

import dataclasses
import shutil
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from lmr_author.eval_loop.backend import ImplementationResult, RunCancelled
from lmr_author.executors.claims import WITHDRAWN, claim, holder
from lmr_author.executors.slurm.cli import (
    SlurmError,
    max_array_size,
    partition_cpus,
    scancel_job,
    scancel_name,
    scancel_pending,
    scancel_pending_name,
    slurm_command,
    squeue_elements,
)
from lmr_author.executors.slurm.pending import (
    MISSES_BEFORE_LOST,
    Array,
    Pending,
    retry_or_fail,
)
from lmr_author.executors.slurm.sbatch import (
    Resources,
    SbatchOptions,
    array_argv,
    array_elements,
    default_in_flight,
    run_budget_s,
    write_array,
)
from lmr_author.executors.wire import RemoteRun, load_result
from lmr_author.runtime.infra_error import InfraError

#: Seconds of squeue failing in a row before the waiting runs give up (controller gone).
SQUEUE_PATIENCE_S = 120.0
#: Seconds ``close`` waits for cancelled or completing jobs to leave the queue.
CLOSE_PATIENCE_S = 30.0


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
        on_note: Callable[[str], None] | None = None,
    ) -> None:
        self.name = name
        self.on_note = on_note
        self.folder = folder
        self.python = python
        self.options = options
        self.retries = retries
        self.poll_s = poll_s
        self.on_progress = on_progress
        self._lock = threading.Condition()
        self._waiting: list[Pending] = []
        #: Submitted arrays with runs not settled yet.
        self._live: list[Array] = []
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
            return bool(self._waiting or self._open())

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
            if self.cancelled:
                scancel_name(self.name)
            else:
                # Every run has its result: the workers still running have none left to
                # claim and end by themselves (COMPLETED, not CANCELLED by us); only
                # elements that never started are cancelled.
                scancel_pending_name(self.name)
            if not self._wait_gone():
                scancel_name(self.name)  # nothing of ours stays queued, whatever happened
                self._wait_gone()
        if not self._keep_logs:
            shutil.rmtree(self.folder, ignore_errors=True)
            if self.folder.exists():  # a job's output file landed during the removal
                self._wait_gone()
                shutil.rmtree(self.folder, ignore_errors=True)

    def _wait_gone(self, patience_s: float = CLOSE_PATIENCE_S) -> bool:
        """Wait (bounded) until squeue lists none of our jobs: a job still completing
        (its worker exiting after writing its result) is not left behind us. False when
        some are still there at the end."""
        deadline = time.monotonic() + patience_s
        while time.monotonic() < deadline:
            try:
                if not squeue_elements(self.name):
                    return True
            except SlurmError:
                return True  # the controller is gone: nothing more to wait for here
            time.sleep(self.poll_s)
        return False

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
                if self._closed and not self._waiting and not self._open():
                    return
                if self._cancelled:
                    self._settle_cancelled()
                    if self._closed:
                        return
                self._lock.wait(self.poll_s)  # woken at once by `add`
                batch, self._waiting = self._waiting, []
            for resources in dict.fromkeys(pending.resources for pending in batch):
                self._submit([p for p in batch if p.resources == resources], resources)
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
        folder = self.folder / f"array-{self._arrays}"
        timeout_s = max(pending.timeout_s for pending in batch)
        try:
            paths = [pending.request_path for pending in batch]
            write_array(folder, paths, self.python, run_budget_s(timeout_s))
        except OSError as error:
            for pending in batch:
                pending.settle(InfraError(f"cannot write the Slurm job: {error}"))
            return
        # MaxArraySize bounds the workers, not the runs: claims are ours, not Slurm's.
        elements = array_elements(len(batch), self._throttle(resources))
        argv = array_argv(
            name=self.name,
            folder=folder,
            elements=min(elements, self._array_size()),
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
        array = Array(job, folder, dict(enumerate(batch)))
        submitted = time.time()
        with self._lock:
            for index, pending in enumerate(batch):
                if pending.submitted_unix is None:
                    pending.submitted_unix = submitted
                pending.attempts += 1
                pending.array, pending.index = array, index
                pending.element, pending.misses, pending.log = "", 0, None
            self._live.append(array)

    def _collect(self, alive: dict[str, str]) -> None:
        with self._lock:
            arrays = list(self._live)
        for array in arrays:
            elements = {key: state for key, state in alive.items() if _job_of(key) == array.job}
            array.misses = 0 if elements else array.misses + 1
            for index, pending in list(array.open.items()):
                self._follow(array, index, pending, alive)
            if array.withdrawn and self.on_note is not None:
                self.on_note(
                    f"Slurm array {array.job}: its workers' walltime (--time) ran out before "
                    f"{array.withdrawn} of its runs started; they go in a new array (a longer "
                    "--time lets each worker run more, in fewer arrays)"
                )
                array.withdrawn = 0
            if not array.trimmed and all(run.element for run in array.open.values()):
                array.trimmed = True  # every run has its worker: the rest need not start
                if any(state == "PD" for state in elements.values()):
                    scancel_pending(array.job)
            with self._lock:
                if not array.open and array in self._live:
                    self._live.remove(array)
        self._report()

    def _follow(self, array: Array, index: int, pending: Pending, alive: dict[str, str]) -> None:
        """One open run of ``array``: its result read back, or its fate once its
        claimer (or, unclaimed, every element of the array) left the queue."""
        if pending.result_path.exists():
            array.progressed = True
            self._finish(array, index, _read(pending))
            return
        owner = pending.element or holder(array.folder, index)  # a claim never changes
        if owner is None:
            # Every worker gone and this run never started: take it back (atomically:
            # a worker claiming it now wins) and submit it again.
            if array.misses >= MISSES_BEFORE_LOST and claim(array.folder, index, WITHDRAWN):
                if array.progressed:
                    pending.attempts -= 1  # its workers ran out of walltime, not it
                    array.withdrawn += 1
                self._lost(array, index, pending)
            return
        array.progressed = True
        pending.element = owner
        pending.log = array.folder / f"{owner.rpartition('_')[2]}.out"
        if owner in alive:
            pending.misses = 0
            return
        pending.misses += 1
        if pending.misses >= MISSES_BEFORE_LOST:
            self._lost(array, index, pending)

    def _lost(self, array: Array, index: int, pending: Pending) -> None:
        """The run's claimer (or its whole array) left the queue without its result:
        submit it again, or give up."""
        with self._lock:
            array.open.pop(index, None)
            error = retry_or_fail(pending, self.retries)
            if pending.element or not array.progressed:
                # The logs explain a failure, unless our own scancel ended it (a Ctrl-C
                # racing this poll): then nothing is kept behind.
                self._keep_logs = self._keep_logs or not self._cancelled
            if error is None and not self._cancelled:
                self._waiting.append(pending)
                return
        pending.settle(error or RunCancelled())

    def _finish(
        self, array: Array, index: int, outcome: ImplementationResult | BaseException
    ) -> None:
        with self._lock:
            pending = array.open.pop(index)
        pending.settle(outcome)

    def _open(self) -> list[Pending]:
        """Every run submitted and not settled (lock held)."""
        return [pending for array in self._live for pending in array.open.values()]

    def _fail_all(self, error: BaseException) -> None:
        with self._lock:
            everything = self._open() + self._waiting
            self._live, self._waiting = [], []
        for pending in everything:
            pending.settle(error)

    def _settle_cancelled(self) -> None:
        """After scancel (lock held): keep the runs whose result is there, cancel the rest."""
        everything = self._open() + self._waiting
        self._live, self._waiting = [], []
        for pending in everything:
            outcome: ImplementationResult | BaseException = RunCancelled()
            if pending.result_path.exists():
                read = _read(pending)
                if not isinstance(read, BaseException):
                    outcome = read
            pending.settle(outcome)

    def _report(self) -> None:
        """Runs, not elements: a worker runs many; queued ones no worker has claimed."""
        if self.on_progress is None:
            return
        with self._lock:
            submitted = self._open()
            waiting = len(self._waiting)
        running = sum(1 for pending in submitted if pending.element)
        progress = Progress(len(submitted) - running + waiting, running, len(self.jobs))
        if progress != self._last_progress:
            self._last_progress = progress
            self.on_progress(progress)


def _job_of(element: str) -> str:
    """The array job of squeue's ``JOB_INDEX`` (or ``JOB_[RANGE]`` while pending)."""
    return element.partition("_")[0]


def _read(pending: Pending) -> ImplementationResult | BaseException:
    """The run's result, with its time in the queue (from its first submission to the
    moment its worker started it) apart from its own."""
    try:
        result = load_result(pending.result_path)
        if isinstance(result, RemoteRun) and result.started_unix and pending.submitted_unix:
            queued = max(0.0, result.started_unix - pending.submitted_unix)
            result = dataclasses.replace(result, queued_s=round(queued, 3))
        return result
    except ValueError as error:
        return InfraError(f"Slurm job {pending.element or pending.array}: {error}")
