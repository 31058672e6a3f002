"""``--executor slurm``: runs as elements of Slurm job arrays, read back into the caller.

`SlurmBackend` wraps the local `DockerBackend`: its settings (so the run key) and its
prepared images are the local ones; only ``run`` differs. Each run writes a request into
the shared folder (under the results folder, so on a shared file system) and waits; one
poller thread submits what is waiting as ONE ``sbatch --array --parsable`` job per
distinct ``--gres`` (a task's GPUs, `gres.gres_for`: CPU and GPU runs never share an
array), polls ``squeue`` for the array's elements and completes a run when its result
file appears. An element that leaves the queue without a result (node failure, killed,
walltime) is submitted again up to ``retries`` times, then the run is an infrastructure
error — never a candidate's verdict. ``run_raw`` (`SlurmRunner`) sends ``validate``'s
raw runs the same way, a whole batch at once (all mutants of an implementation: one
array). ``interrupt`` (the first Ctrl-C) cancels the jobs with ``scancel``: runs whose
result is there are kept, the others raise `RunCancelled` (not written; they run again
on resume).

Plain sbatch/squeue/scancel rather than submitit: submitit pickles a Python callable
into the shared folder and unpickles its result, which would make the shared folder a
code-execution path into the submitter; our JSON request/result (`wire`) is data only.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import secrets
import shlex
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lmr_author.evaluation.backend import (
    DockerBackend,
    ImplementationResult,
    PreparedImage,
    RunCancelled,
)
from lmr_author.executors.gres import GpuType, gres_for, unrequested_memory
from lmr_author.executors.wire import (
    RAW,
    SCORED,
    Request,
    expected_to_wire,
    load_result,
    raw_settings,
    sha256,
)
from lmr_author.sandbox.engine import selected_runtime
from lmr_author.sandbox.errors import InfraError
from lmr_author.sandbox.images import ImageRef
from lmr_author.sandbox.results import ImplementationRun
from lmr_author.task import Implementation, Task
from lmr_author.validate.runs import RawRun

#: Seconds of squeue failing in a row before the waiting runs give up (controller gone).
SQUEUE_PATIENCE_S = 120.0
#: Seconds ``close`` waits for cancelled or completing jobs to leave the queue.
CLOSE_PATIENCE_S = 30.0


class SlurmError(InfraError):
    """sbatch, squeue or scancel failed."""


def slurm_command(argv: Sequence[str], *, timeout_s: float = 60.0) -> str:
    """Run a Slurm client command; its stdout, or `SlurmError` saying what it said."""
    try:
        done = subprocess.run(
            list(argv), capture_output=True, text=True, timeout=timeout_s, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        raise SlurmError(f"{argv[0]} failed: {error}") from None
    if done.returncode != 0:
        said = " ".join((done.stderr or done.stdout).split())
        raise SlurmError(f"{argv[0]} failed (exit {done.returncode}): {said}")
    return done.stdout


@dataclass
class _Pending:
    """One run handed to Slurm, and its outcome once known."""

    request: Request
    request_path: Path
    #: ``sbatch --gres`` of this run (runs with different ones go in different arrays).
    gres: str | None = None
    #: The run's time limit per test file and CPUs: its array's walltime and CPUs.
    timeout_s: float = 120.0
    cpus: float = 1.0
    candidate_path: Path | None = None
    attempts: int = 0
    #: Polls in a row that found the element gone without its result.
    misses: int = 0
    element: str = ""
    log: Path | None = None
    outcome: ImplementationResult | BaseException | None = None
    done: threading.Event = field(default_factory=threading.Event)


@dataclass(frozen=True)
class Progress:
    """What the cluster is doing with this evaluation's runs."""

    queued: int
    running: int
    submitted_jobs: int


class SlurmBackend:
    """A `Backend` whose runs execute as Slurm job-array elements (see the module doc)."""

    #: What run.json records as where a run executed.
    executor = "slurm"

    def __init__(
        self,
        inner: DockerBackend,
        shared: Path,
        *,
        gres: str | None = None,
        gpu_types: Sequence[GpuType] = (),
        partition: str | None = None,
        images: Path | None = None,
        registry: str | None = None,
        retries: int = 2,
        poll_s: float = 0.25,
        python: str = sys.executable,
        on_progress: Callable[[Progress], None] | None = None,
        on_note: Callable[[str], None] | None = None,
        command: str = "eval",
    ) -> None:
        self.inner = inner
        #: ``--gres`` for every run (the user's), else each task's GPUs (`gres_for`).
        self.gres = gres
        self.gpu_types = tuple(gpu_types)
        self._noted: set[str] = set()
        self.partition = partition
        #: Where nodes lacking a run's image load it from (``sandbox save``'s folder).
        self.images = None if images is None else Path(images).resolve()
        #: Where nodes lacking a run's image pull it from (``sandbox push``'s registry).
        self.registry = registry
        self.retries = retries
        self.poll_s = poll_s
        self.python = python
        self.on_progress = on_progress
        #: Said once per occasion (e.g. a task's GPU memory that Slurm is not asked for).
        self.on_note = on_note
        #: Unique per evaluation: the jobs' name, and the shared folder's subfolder.
        self.token = f"lmr-{command}-{secrets.token_hex(4)}"
        self.folder = Path(shared).resolve() / self.token
        self._lock = threading.Condition()
        self._waiting: list[_Pending] = []
        self._outstanding: dict[str, _Pending] = {}
        self._jobs: list[str] = []
        self._cancelled = False
        self._closed = False
        self._serial = 0
        self._arrays = 0
        self._keep_logs = False
        self._poller: threading.Thread | None = None
        self._last_progress: Progress | None = None

    # The run key and images are the local backend's: an executor changes neither.
    def settings(self) -> dict[str, Any]:
        return self.inner.settings()

    def prepare(self, task: Task) -> PreparedImage:
        return self.inner.prepare(task)

    def sweep_orphans(self) -> list[str]:
        return self.inner.sweep_orphans()

    def run(
        self, task: Task, implementation: Implementation, candidate: bytes, image: PreparedImage
    ) -> ImplementationResult:
        limits = self.inner.limits()
        pending = self._pending(
            task,
            implementation,
            candidate,
            image.image_id,
            workdir=image.workdir if isinstance(image, ImageRef) else None,
            settings=self.settings(),
            timeout_s=limits.timeout_s,
            cpus=limits.cpus,
            gpus=self.inner.gpus,
            hf_cache=self.inner.hf_cache,
        )
        [outcome] = self._execute([pending])
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome

    def run_raw(self, runs: Sequence[RawRun]) -> list[ImplementationResult | BaseException]:
        """``validate``'s runs (`run_tests` on the node), submitted together; in order."""
        prepared: list[_Pending | InfraError] = []
        for run in runs:
            try:
                prepared.append(
                    self._pending(
                        run.task,
                        run.impl,
                        run.candidate,
                        run.image.image_id,
                        workdir=run.image.workdir,
                        settings=raw_settings(run.limits, run.protocol, selected_runtime()),
                        timeout_s=run.limits.timeout_s,
                        cpus=run.limits.cpus,
                        gpus=run.limits.gpus,
                        hf_cache=run.limits.hf_cache,
                        kind=RAW,
                        limits=dataclasses.asdict(run.limits),
                        expected=expected_to_wire(run.expected),
                        protocol=run.protocol,
                        isolated=run.isolated,
                        test_reads=run.test_reads,
                    )
                )
            except InfraError as error:  # e.g. no --gpu-types type has the memory
                prepared.append(error)
        done = iter(self._execute([item for item in prepared if isinstance(item, _Pending)]))
        return [next(done) if isinstance(item, _Pending) else item for item in prepared]

    def _pending(
        self,
        task: Task,
        implementation: Implementation,
        candidate: bytes | None,
        image_id: str,
        *,
        workdir: str | None = None,
        settings: dict[str, Any],
        timeout_s: float,
        cpus: float,
        gpus: str | None,
        hf_cache: str | None,
        kind: str = SCORED,
        limits: dict[str, Any] | None = None,
        expected: dict[str, Any] | None = None,
        protocol: str | None = None,
        isolated: bool = True,
        test_reads: tuple[str, ...] = (),
    ) -> _Pending:
        """Write one run's candidate and request into the shared folder."""
        gres = self._gres(task)
        with self._lock:
            if self._cancelled:
                raise RunCancelled
            self._serial += 1
            name = f"r{self._serial}"
        runs = self.folder / "runs"
        runs.mkdir(parents=True, exist_ok=True)
        candidate_path = None
        if candidate is not None:
            candidate_path = runs / f"{name}.candidate"
            candidate_path.write_bytes(candidate)
        request = Request(
            task_path=str(task.path),
            implementation=implementation.index,
            candidate_path=None if candidate_path is None else str(candidate_path),
            candidate_sha256=None if candidate is None else sha256(candidate),
            runtime=selected_runtime(),
            base_image=self.inner.base_image,
            timeout_s=self.inner.timeout_s,
            protocol=self.inner.protocol if protocol is None else protocol,
            image_id=image_id,
            workdir=workdir,
            settings=settings,
            result_path=str(runs / f"{name}.result.json"),
            gpus=gpus,
            hf_cache=hf_cache,
            kind=kind,
            limits=limits,
            expected=expected,
            images=None if self.images is None else str(self.images),
            registry=self.registry,
            isolated=isolated,
            test_reads=list(test_reads),
        )
        pending = _Pending(
            request,
            runs / f"{name}.request.json",
            gres=gres,
            timeout_s=timeout_s,
            cpus=cpus,
            candidate_path=candidate_path,
        )
        request.save(pending.request_path)
        return pending

    def _gres(self, task: Task) -> str | None:
        """This task's ``--gres``; says once per task what Slurm is not asked for."""
        hardware = task.hardware
        note = unrequested_memory(hardware, user_gres=self.gres, gpu_types=self.gpu_types)
        if note is not None and self.on_note is not None:
            with self._lock:
                first = task.name not in self._noted
                self._noted.add(task.name)
            if first:
                self.on_note(f"{task.name} {note}")
        return gres_for(hardware, user_gres=self.gres, gpu_types=self.gpu_types)

    def _execute(self, pendings: list[_Pending]) -> list[ImplementationResult | BaseException]:
        """Hand ``pendings`` to the poller at once (one array per --gres) and wait for all."""
        with self._lock:
            self._waiting.extend(pendings)
            self._start_poller()
            self._lock.notify_all()
        try:
            for pending in pendings:
                pending.done.wait()
        except BaseException:
            # An abandoned wait (Ctrl-C, SIGTERM, SIGHUP): cancel before the request
            # files go, or the poller resubmits runs whose requests are gone.
            self.interrupt()
            raise
        finally:
            for pending in pendings:
                for path in (pending.candidate_path, pending.request_path):
                    if path is not None:
                        path.unlink(missing_ok=True)
                Path(pending.request.result_path).unlink(missing_ok=True)
        outcomes = []
        for pending in pendings:
            assert pending.outcome is not None
            outcomes.append(pending.outcome)
        return outcomes

    def interrupt(self) -> None:
        """Cancel every job of this evaluation (scancel); finished runs are kept."""
        with self._lock:
            self._cancelled = True
            self._lock.notify_all()
        self._scancel()

    def kill_running(self) -> int:
        self.interrupt()
        return 0

    def close(self) -> None:
        with self._lock:
            unfinished = bool(self._waiting or self._outstanding)
        if unfinished:  # the pool stopped early (an error): no job outlives the command
            self.interrupt()
        with self._lock:
            self._closed = True
            self._lock.notify_all()
            poller = self._poller
        if poller is not None:
            poller.join()
        if self._jobs:
            self._scancel()  # nothing of ours stays queued, whatever happened
            self._wait_gone()
        if not self._keep_logs:  # the job logs stay when some run failed on a node
            shutil.rmtree(self.folder, ignore_errors=True)
            if self.folder.exists():  # a job's output file landed during the removal
                self._wait_gone()
                shutil.rmtree(self.folder, ignore_errors=True)
        self.inner.close()

    def _wait_gone(self, patience_s: float = CLOSE_PATIENCE_S) -> None:
        """Wait (bounded) until squeue lists none of our jobs: a job still completing
        (its worker exiting after writing its result) is not left behind us."""
        deadline = time.monotonic() + patience_s
        while time.monotonic() < deadline:
            try:
                if not self._squeue():
                    return
            except SlurmError:
                return  # the controller is gone: nothing more to wait for here
            time.sleep(self.poll_s)

    # --- the poller thread -------------------------------------------------------------

    def _start_poller(self) -> None:
        if self._poller is None:
            self._poller = threading.Thread(target=self._poll, name="lmr-slurm", daemon=True)
            self._poller.start()

    def _poll(self) -> None:
        try:
            self._poll_loop()
        except Exception as error:  # a bug or a full disk: no run may wait forever
            self._fail_all(InfraError(f"the Slurm poller failed: {error}"))
            self._scancel()

    def _poll_loop(self) -> None:
        failing_since: float | None = None
        while True:
            with self._lock:
                if self._closed and not self._waiting and not self._outstanding:
                    return
                if self._cancelled:
                    self._settle_cancelled()
                    if self._closed:
                        return
                self._lock.wait(self.poll_s)
                batch, self._waiting = self._waiting, []
            for gres in dict.fromkeys(pending.gres for pending in batch):
                self._submit([pending for pending in batch if pending.gres == gres], gres)
            try:
                alive = self._squeue()
            except SlurmError as error:
                failing_since = failing_since or time.monotonic()
                if time.monotonic() - failing_since > SQUEUE_PATIENCE_S:
                    self._fail_all(error)
                continue
            failing_since = None
            self._collect(alive)

    def _submit(self, batch: list[_Pending], gres: str | None) -> None:
        """One job array for ``batch``; on failure, each run fails as infrastructure."""
        self._arrays += 1
        array = self.folder / f"array-{self._arrays}"
        try:
            array.mkdir(parents=True)
            for position, pending in enumerate(batch):
                (array / f"{position}.json").symlink_to(pending.request_path)
            script = array / "job.sh"
            script.write_text(
                "#!/bin/sh\n"
                f"exec {shlex.quote(self.python)} -m lmr_author.executors.worker "
                f'{shlex.quote(str(array))}/"$SLURM_ARRAY_TASK_ID.json"\n'
            )
        except OSError as error:
            for pending in batch:
                self._finish(pending, InfraError(f"cannot write the Slurm job: {error}"))
            return
        # Walltime: the candidate's test and the golden count check, plus start-up.
        minutes = math.ceil((max(p.timeout_s for p in batch) * 3 + 600) / 60)
        cpus = math.ceil(max(p.cpus for p in batch))
        argv = ["sbatch", "--parsable", f"--array=0-{len(batch) - 1}"]
        argv += [f"--job-name={self.token}", f"--output={array}/%a.out", f"--chdir={array}"]
        argv += [f"--time={minutes}", f"--cpus-per-task={cpus}"]
        if gres:
            argv.append(f"--gres={gres}")
        if self.partition:
            argv.append(f"--partition={self.partition}")
        with self._lock:
            cancelled = self._cancelled
        if cancelled:  # Ctrl-C came while this batch was being written: submit nothing
            for pending in batch:
                self._finish(pending, RunCancelled())
            return
        try:
            job = slurm_command([*argv, str(script)]).strip().split(";")[0]
        except SlurmError as error:
            for pending in batch:
                self._finish(pending, error)
            return
        with self._lock:
            self._jobs.append(job)
            cancelled = self._cancelled
        if cancelled:  # the scancel by name may have run before this job existed
            with contextlib.suppress(SlurmError):
                slurm_command(["scancel", job])
        with self._lock:
            for position, pending in enumerate(batch):
                pending.attempts += 1
                pending.element = f"{job}_{position}"
                pending.misses = 0
                pending.log = array / f"{position}.out"
                self._outstanding[pending.element] = pending

    def _squeue(self) -> dict[str, str]:
        """This evaluation's array elements still queued or running, with their state."""
        out = slurm_command(["squeue", "-h", "-r", f"--name={self.token}", "-o", "%i %t"])
        alive = {}
        for line in out.splitlines():
            parts = line.split()
            if len(parts) == 2:
                alive[parts[0]] = parts[1]
        return alive

    def _collect(self, alive: dict[str, str]) -> None:
        with self._lock:
            outstanding = list(self._outstanding.items())
        for element, pending in outstanding:
            result = Path(pending.request.result_path)
            if result.exists():
                try:
                    outcome: ImplementationResult | BaseException = load_result(result)
                except ValueError as error:
                    outcome = InfraError(f"Slurm job {element}: {error}")
                self._finish(pending, outcome)
            elif element not in alive:
                # Twice: a result written on another node may show up a poll late.
                pending.misses += 1
                if pending.misses >= 2:
                    self._lost(element, pending)
            else:
                pending.misses = 0
        self._report(alive)

    def _lost(self, element: str, pending: _Pending) -> None:
        """The element left the queue without a result: submit again, or give up."""
        with self._lock:
            # Its log explains a failure, unless our own scancel ended it (a Ctrl-C racing
            # this poll): then nothing is kept behind.
            self._keep_logs = self._keep_logs or not self._cancelled
            self._outstanding.pop(element, None)
            if pending.attempts <= self.retries and not self._cancelled:
                self._waiting.append(pending)
                return
        self._finish(
            pending,
            InfraError(
                f"Slurm job {element} ended without a result {pending.attempts} time(s) "
                f"(node failure, killed or out of time); see {pending.log}"
            ),
        )

    def _finish(self, pending: _Pending, outcome: ImplementationResult | BaseException) -> None:
        with self._lock:
            self._outstanding.pop(pending.element, None)
        pending.outcome = outcome
        pending.done.set()

    def _fail_all(self, error: BaseException) -> None:
        with self._lock:
            everything = list(self._outstanding.values()) + self._waiting
            self._waiting = []
        for pending in everything:
            self._finish(pending, error)

    def _settle_cancelled(self) -> None:
        """After scancel (lock held): keep the runs whose result is there, cancel the rest."""
        everything = list(self._outstanding.values()) + self._waiting
        self._outstanding, self._waiting = {}, []
        for pending in everything:
            result = Path(pending.request.result_path)
            try:
                pending.outcome = load_result(result) if result.exists() else RunCancelled()
            except ValueError:
                pending.outcome = RunCancelled()
            pending.done.set()

    def _scancel(self) -> None:
        # On failure the jobs end on their own at their walltime; nothing better to do.
        with contextlib.suppress(SlurmError):
            slurm_command(["scancel", f"--name={self.token}"])

    def _report(self, alive: dict[str, str]) -> None:
        if self.on_progress is None:
            return
        running = sum(1 for state in alive.values() if state in ("R", "CG", "CF"))
        progress = Progress(len(alive) - running, running, len(self._jobs))
        if progress != self._last_progress:
            self._last_progress = progress
            self.on_progress(progress)


class SlurmRunner:
    """``validate --run --executor slurm``: each batch of raw runs is one job array."""

    def __init__(self, backend: SlurmBackend) -> None:
        self.backend = backend

    def run_all(
        self, runs: Sequence[RawRun], on_progress: Callable[[str], None] | None = None
    ) -> list[ImplementationRun]:
        if on_progress is not None and runs:
            first = runs[0].label or runs[0].task.name
            more = f" and {len(runs) - 1} more" if len(runs) > 1 else ""
            on_progress(f"{first}{more}: submitted to Slurm")
        outcomes = []
        for run, outcome in zip(runs, self.backend.run_raw(runs), strict=True):
            if isinstance(outcome, RunCancelled):
                raise outcome
            if isinstance(outcome, BaseException):
                # A cluster failure is the run's infrastructure error, as locally.
                reason = str(outcome) or type(outcome).__name__
                outcome = ImplementationRun(
                    verdicts=[], image_id=run.image.image_id, infra_error=reason
                )
            if not isinstance(outcome, ImplementationRun):
                raise TypeError(f"a raw run came back as {outcome!r}")
            outcomes.append(outcome)
        return outcomes
