"""Submissions x tasks -> runs -> results: the worker pool and resuming.

Each (system, task, implementation) is one run. A run is identified by its key
(`lmr_author.eval_output.run_key`, hashing the task, implementation, system, candidate,
image and sandbox settings); a stored run with
the same key is finished and is skipped (unless ``force``), so an interrupted evaluation
resumes where it stopped and a changed candidate or task runs again (keying on ids
alone is a known source of stale results). Runs go to a thread pool (the work happens in
Docker); each finished run is written at once. SIGINT stops the dispatch, lets running
runs finish and remove their containers, and keeps everything finished; a second SIGINT
kills the running containers at once. Every start removes the containers of evaluations
that died (killed with SIGKILL, say), which their labels tell (owner pid, deadline).
"""

from __future__ import annotations

import errno
import hashlib
import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from types import FrameType
from typing import Any, TypeVar

from lmr_author.domain.benchmark import Benchmark, load_benchmark
from lmr_author.domain.task import Implementation, Task
from lmr_author.domain.verdicts import ERROR, INFRA_ERROR, PASS, deciding_test, normalize
from lmr_author.eval_loop.backend import (
    Backend,
    DockerBackend,
    ImplementationResult,
    PreparedImage,
    RunCancelled,
    TestFileResult,
)
from lmr_author.eval_loop.submissions import Candidate, Submission, load_candidates
from lmr_author.eval_output import (
    RunRecord,
    TestRecord,
    candidate_sha256,
    find_run,
    save_run,
    verify_run,
)
from lmr_author.eval_output.lock import output_lock, remove_interrupted_writes
from lmr_author.eval_output.results import Results, build_results, save_results
from lmr_author.eval_output.run_key import run_key
from lmr_author.util.errors import UserError

_T = TypeVar("_T")


@dataclass
class _Job:
    candidate: Candidate
    #: Where the candidate came from, for ``candidate_sha256`` of unrunnable candidates.
    candidate_sha256: str | None


def task_fingerprint(task: Task, index: int) -> str:
    """A hash of what defines an implementation besides the image: info.json, its test and
    the expected outputs of a replay test (kept out of the image)."""
    from lmr_author.sandbox.replay import replay_dir

    digest = hashlib.sha256()
    impl = task.implementation(index)
    paths = [task.info_path]
    for test_file in impl.test_files:  # strengthen's replay test besides the published one
        expected = replay_dir(task.path, test_file)
        paths.append(impl.repo_dir / test_file)
        paths += sorted(expected.glob("*.json")) if expected.is_dir() else []
    for path in paths:
        try:
            digest.update(path.name.encode() + b"\0" + path.read_bytes())
        except OSError:
            digest.update(b"<missing>")
    return digest.hexdigest()


class _ImageCache:
    """Each task's image prepared once, by whichever worker needs it first."""

    def __init__(self, backend: Backend) -> None:
        self.backend = backend
        self._lock = threading.Lock()
        self._task_locks: dict[str, threading.Lock] = {}
        self._done: dict[str, PreparedImage | Exception] = {}

    def get(self, task: Task) -> PreparedImage:
        with self._lock:
            task_lock = self._task_locks.setdefault(task.name, threading.Lock())
        with task_lock:
            if task.name not in self._done:
                try:
                    self._done[task.name] = self.backend.prepare(task)
                except Exception as error:
                    self._done[task.name] = error
            found = self._done[task.name]
        if isinstance(found, Exception):
            raise found
        return found


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _describe(error: BaseException) -> str:
    text = str(error).strip() or type(error).__name__
    return " ".join(text.split())


def _overall_verdict(tests: list[TestRecord]) -> tuple[str, str]:
    """The run's verdict (`worst_of` its tests) and the reason of the test that gave it."""
    if not tests:
        return ERROR, "no unit test ran"
    index = deciding_test([test.verdict for test in tests])
    if index is None:
        return PASS, ""
    test = tests[index]
    return normalize(test.verdict), f"{test.test_file}: {test.reason}".rstrip(": ")


@dataclass
class _Begun:
    """A job whose key is known: ``run`` is what the backend is to run (None: done)."""

    job: _Job
    record: RunRecord
    start: float
    skipped: bool = False
    run: tuple[Task, Implementation, bytes, PreparedImage] | None = None


class _Aborted(Exception):
    """A run cut short by a second Ctrl-C: not written, run again on resume."""


class _Evaluator:
    """Executes jobs: one run each, written to disk before it is reported."""

    def __init__(
        self,
        output: Path,
        backend: Backend,
        force: bool,
        on_notice: Callable[[str], None] | None = None,
    ) -> None:
        self.output = output
        self.on_notice = on_notice
        self.backend = backend
        self.force = force
        self.images = _ImageCache(backend)
        self.settings = backend.settings()
        #: Set by a second Ctrl-C: runs cut short by it are not written (they run again).
        self.aborted = threading.Event()

    def execute(self, job: _Job) -> tuple[RunRecord, bool]:
        """Run ``job`` unless an equal run is stored; return the record and ``skipped``."""
        begun = self.begin(job)
        if begun.run is None:
            return begun.record, begun.skipped
        outcome: ImplementationResult | BaseException
        try:
            outcome = self.backend.run(*begun.run)
        except Exception as error:  # RunCancelled included: `finish` decides
            outcome = error
        return self.finish(begun, outcome), False

    def begin(self, job: _Job) -> _Begun:
        """The run's key and record; done already when stored, unrunnable or unbuildable
        (then written), else with what the backend is to run."""
        candidate = job.candidate
        task, impl = candidate.task, candidate.implementation
        started_at, start = _now(), time.monotonic()
        image_id = ""
        image: PreparedImage | None = None
        infra_reason = ""
        if candidate.source is not None:
            try:
                image = self.images.get(task)
                image_id = image.image_id
            except Exception as error:
                infra_reason = f"cannot build the image of task {task.name}: {_describe(error)}"
        key = run_key(
            task=task.name,
            implementation=impl.index,
            system=candidate.system,
            candidate_sha256=job.candidate_sha256,
            image_id=image_id,
            settings=self.settings,
            task_sha256=task_fingerprint(task, impl.index),
            reason=candidate.reason,
        )
        if not self.force and not infra_reason:
            stored = find_run(self.output, candidate.system, task.name, impl.index)
            if stored is not None and stored.run_key == key and stored.counted:
                damage = verify_run(self.output, stored)
                if not damage:
                    return _Begun(job, stored, start, skipped=True)
                if self.on_notice is not None:
                    self.on_notice(
                        f"the stored run of {candidate.system} {task.name}#{impl.index} "
                        f"does not verify ({'; '.join(damage)}): running it again"
                    )
        record = RunRecord(
            run_key=key,
            system=candidate.system,
            task=task.name,
            implementation=impl.index,
            category=impl.category,
            goal_file=impl.goal_file,
            goal_function=impl.goal_function,
            class_name=impl.class_name,
            candidate_sha256=job.candidate_sha256,
            image_id=image_id,
            verdict=ERROR,
            reason=candidate.reason,
            started_at=started_at,
            runtime=str(self.settings.get("runtime", "docker")),
            executor=str(getattr(self.backend, "executor", "local")),
        )
        if infra_reason:
            record.verdict, record.reason = INFRA_ERROR, infra_reason
        elif candidate.source is not None and image is not None:
            return _Begun(job, record, start, run=(task, impl, candidate.source, image))
        self._save(job, record, start, {})
        return _Begun(job, record, start)

    def finish(self, begun: _Begun, outcome: ImplementationResult | BaseException) -> RunRecord:
        """Write the run ``begun`` started with the backend's ``outcome``."""
        record, logs = begun.record, dict[str, str]()
        if isinstance(outcome, RunCancelled):
            raise _Aborted
        if isinstance(outcome, BaseException):
            record.verdict = INFRA_ERROR
            record.reason = f"the sandbox failed: {_describe(outcome)}"
        else:
            self._fill(record, outcome, logs)
        if self.aborted.is_set():
            raise _Aborted  # its container was killed by us: says nothing, runs again
        took = _remote_times(record, outcome)
        self._save(begun.job, record, begun.start, logs, took)
        return record

    def _save(
        self,
        job: _Job,
        record: RunRecord,
        start: float,
        logs: dict[str, str],
        took: float | None = None,
    ) -> None:
        candidate = job.candidate
        record.duration_s = round(time.monotonic() - start if took is None else took, 3)
        try:
            save_run(
                self.output,
                record,
                candidate=candidate.source,
                prediction=candidate.prediction,
                logs=logs,
            )
        except OSError as error:
            full = error.errno in (errno.ENOSPC, errno.EDQUOT)
            raise UserError(
                f"cannot write the run of {candidate.system} {record.task}#"
                f"{record.implementation}: "
                + ("the disk is full" if full else f"{error.strerror or error}"),
                file=error.filename or self.output,
                hint=(
                    "Free space on that disk, then run the same command again to resume."
                    if full
                    else "Fix the folder's permissions, then run again to resume."
                ),
            ) from None

    @staticmethod
    def _fill(record: RunRecord, outcome: ImplementationResult, logs: dict[str, str]) -> None:
        record.tests = []
        for test in outcome.verdicts:
            verdict = normalize(test.verdict)
            record.tests.append(
                TestRecord(
                    test_file=test.test_file,
                    verdict=verdict,
                    reason=" ".join(str(test.reason or "").split()),
                    duration_s=round(float(test.duration_s), 3),
                    log_file="",
                )
            )
            logs[test.test_file] = _kept_log(test)
        record.isolated = bool(outcome.isolated)
        record.not_isolated_why = "" if outcome.isolated else str(outcome.not_isolated_why)
        infra = outcome.infra_error
        if infra:
            # No verdict, so no word on where a candidate ran (an unproven golden's
            # candidates never ran at all): never read as "in the test's process".
            record.isolated, record.not_isolated_why = None, ""
            record.verdict = INFRA_ERROR
            record.reason = infra if isinstance(infra, str) else _describe(_as_error(infra))
        else:
            record.verdict, record.reason = _overall_verdict(record.tests)


def _remote_times(record: RunRecord, outcome: object) -> float | None:
    """A run a Slurm worker ran: its record starts when the worker started it and lasts
    what it took there; the time in the queue goes apart (``queued_s``). None (and the
    record as it is) for a local run."""
    started = getattr(outcome, "started_unix", None)
    finished = getattr(outcome, "finished_unix", None)
    if not isinstance(started, float) or not isinstance(finished, float):
        return None
    record.started_at = datetime.fromtimestamp(started, UTC).isoformat(timespec="seconds")
    queued = getattr(outcome, "queued_s", None)
    record.queued_s = queued if isinstance(queued, float) else None
    return max(0.0, finished - started)


def _as_error(value: object) -> BaseException:
    return value if isinstance(value, BaseException) else RuntimeError(str(value))


@contextmanager
def _stop_on_signals(
    stop: threading.Event,
    on_interrupt: Callable[[], None] | None,
    on_abort: Callable[[], None] | None = None,
) -> Iterator[None]:
    """While inside, SIGINT, SIGTERM and SIGHUP set ``stop`` instead of raising (main
    thread only);
    a second one calls ``on_abort`` (kill the running containers at once)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(_signum: int, _frame: FrameType | None) -> None:
        if stop.is_set():
            if on_abort is not None:
                on_abort()
            return
        stop.set()
        if on_interrupt is not None:
            on_interrupt()

    # SIGHUP too: a closed terminal or a dropped ssh session is an interrupt, not a kill.
    signals = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    previous = {sig: signal.signal(sig, handler) for sig in signals}
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


def plan_jobs(
    submissions: Sequence[Submission], tasks: list[Task], *, whole_benchmark: bool = True
) -> list[_Job]:
    """One job per (system, task, implementation), task-major so images are reused early."""
    candidates: list[Candidate] = []
    owner: dict[str, Path] = {}
    for submission in submissions:
        loaded = load_candidates(submission, tasks, whole_benchmark=whole_benchmark)
        for system in dict.fromkeys(c.system for c in loaded):
            if system in owner:
                raise UserError(
                    f"system {system} comes from two submissions ({owner[system]} and "
                    f"{submission.path})",
                    hint="Give each submission its own --system name.",
                )
            owner[system] = submission.path
        candidates.extend(loaded)
    order = {task.name: position for position, task in enumerate(tasks)}
    candidates.sort(key=lambda c: (order[c.task.name], c.implementation.index, c.system))
    jobs = []
    for candidate in candidates:
        if candidate.source is not None:
            digest: str | None = candidate_sha256(candidate.source)
        elif candidate.prediction is not None:
            digest = candidate_sha256(candidate.prediction.encode("utf-8"))
        else:
            digest = None
        jobs.append(_Job(candidate, digest))
    return jobs


def run_evaluation(
    benchmark: Path,
    submissions: list[Submission],
    output: Path,
    *,
    workers: int = 1,
    force: bool = False,
    tasks: Sequence[str] | None = None,
    backend: Backend | None = None,
    base_image: str | None = None,
    timeout_s: float | None = None,
    gpus: str | None = None,
    hf_cache: str | None = None,
    on_start: Callable[[int], None] | None = None,
    on_run: Callable[[RunRecord, bool], None] | None = None,
    on_interrupt: Callable[[], None] | None = None,
    on_abort: Callable[[], None] | None = None,
    on_orphans: Callable[[list[str]], None] | None = None,
    stop: threading.Event | None = None,
    on_loaded: Callable[[Benchmark], None] | None = None,
    on_notice: Callable[[str], None] | None = None,
) -> Results:
    """Evaluate ``submissions`` on ``benchmark``, writing runs and results under ``output``.

    Args:
        workers: runs at once.
        force: run again even runs whose stored key matches.
        tasks: only these task folder names.
        backend: builds images and runs tests; default `DockerBackend` (with
            ``base_image``, ``timeout_s``, ``gpus`` and ``hf_cache``, the hub folder).
        on_start: called with the number of runs planned.
        on_run: called (in the calling thread) with each finished run and whether it was
            skipped as already done.
        on_interrupt: called when SIGINT/SIGTERM arrives (then running runs finish).
        on_abort: called when a second one arrives: the running containers are killed at
            once and their runs are not written (they run again on resume).
        on_orphans: called at the start with the containers removed because the
            evaluation that started them died (`housekeeping.remove_orphans`).
        stop: set it to stop dispatching (what SIGINT does).
        on_loaded: called first with the loaded benchmark (its broken tasks are skipped).
        on_notice: called with each line worth telling: a stored run that does not
            verify (run again), temporary files an interrupted evaluation left (removed).

    Raises:
        UserError: another evaluation is writing ``output`` (`output_lock`), naming it.

    Returns:
        The results of every run stored under ``output``; ``interrupted`` when stopped
        before all runs were done. ``output/results.json`` is rewritten either way.
    """
    if workers < 1:
        raise UserError(f"--workers must be at least 1, got {workers}")
    benchmark = Path(benchmark).resolve()
    output = Path(output)
    loaded = load_benchmark(benchmark, tasks)
    if on_loaded is not None:
        on_loaded(loaded)
    # With tasks skipped, a submission holding only those is no wrong path: no refusal.
    jobs = plan_jobs(submissions, loaded.tasks, whole_benchmark=not tasks and not loaded.broken)
    owned_backend = backend is None
    real_backend: Backend = backend or DockerBackend(
        base_image=base_image, timeout_s=timeout_s, gpus=gpus, hf_cache=hf_cache
    )
    stop = stop or threading.Event()
    output.mkdir(parents=True, exist_ok=True)
    with output_lock(output):
        left = remove_interrupted_writes(output)
        if left and on_notice is not None:
            on_notice(
                f"removed {len(left)} temporary file(s) of writes an interrupted evaluation "
                f"left in {output}"
            )
        return _evaluate(
            benchmark,
            output,
            jobs,
            real_backend,
            owned_backend=owned_backend,
            workers=workers,
            force=force,
            stop=stop,
            on_start=on_start,
            on_run=on_run,
            on_interrupt=on_interrupt,
            on_abort=on_abort,
            on_orphans=on_orphans,
            on_notice=on_notice,
        )


def _evaluate(
    benchmark: Path,
    output: Path,
    jobs: list[_Job],
    real_backend: Backend,
    *,
    owned_backend: bool,
    workers: int,
    force: bool,
    stop: threading.Event,
    on_start: Callable[[int], None] | None,
    on_run: Callable[[RunRecord, bool], None] | None,
    on_interrupt: Callable[[], None] | None,
    on_abort: Callable[[], None] | None,
    on_orphans: Callable[[list[str]], None] | None,
    on_notice: Callable[[str], None] | None,
) -> Results:
    """`run_evaluation` with the output folder's lock held."""
    from lmr_author.sandbox.container_life import allow_new_containers

    allow_new_containers()  # a second Ctrl-C of an earlier evaluation here stopped them
    if on_start is not None:
        on_start(len(jobs))
    check_tasks = getattr(real_backend, "check_tasks", None)
    if check_tasks is not None and jobs:  # Slurm: what each task's arrays ask, before builds
        runnable = [job.candidate.task for job in jobs if job.candidate.source is not None]
        check_tasks(list({task.name: task for task in runnable}.values()))
    evaluator = _Evaluator(output, real_backend, force, on_notice)
    sweep = getattr(real_backend, "sweep_orphans", None)
    if sweep is not None and jobs:
        removed = sweep()
        if on_orphans is not None:
            on_orphans(removed)
    kill = getattr(real_backend, "kill_running", None)
    # A backend with queued remote jobs (Slurm) cancels them at the first Ctrl-C.
    cancel = getattr(real_backend, "interrupt", None)

    def interrupt() -> None:
        if on_interrupt is not None:
            on_interrupt()
        if cancel is not None:
            cancel()

    def abort() -> None:
        evaluator.aborted.set()
        if on_abort is not None:
            on_abort()
        if kill is not None:
            kill()

    # A backend that takes every run at once (Slurm: job arrays) gets them all together.
    start_runs = getattr(real_backend, "start_runs", None)
    done = 0
    try:
        with _stop_on_signals(stop, interrupt, abort):
            finished = (
                _dispatch(evaluator.execute, jobs, workers, stop)
                if start_runs is None
                else _batched(evaluator, jobs, workers, stop, start_runs)
            )
            for record, skipped in finished:
                done += 1
                if on_run is not None:
                    on_run(record, skipped)
    finally:
        if owned_backend and isinstance(real_backend, DockerBackend):
            real_backend.close()
        _say_lost_containers(on_notice)
    results = build_results(output, str(benchmark), interrupted=done < len(jobs))
    save_results(output, results)
    return results


def _say_lost_containers(on_notice: Callable[[str], None] | None) -> None:
    """Containers the engine kept from us (it stopped answering) and still does: said,
    since only the next evaluation on that engine can remove them now."""
    from lmr_author.sandbox.container_life import lost_containers

    lost = lost_containers()
    if lost and on_notice is not None:
        on_notice(
            f"{len(lost)} run container(s) could not be removed: the container engine "
            "stopped answering; the next evaluation on this engine removes them"
        )


def _dispatch(
    work: Callable[[_Job], _T], jobs: Sequence[_Job], workers: int, stop: threading.Event
) -> Iterator[_T]:
    """``work`` of each job, ``workers`` at once, as they finish; none started after
    ``stop`` (those cut short by a second Ctrl-C, `_Aborted`, are left out)."""
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="lmr-eval") as pool:
        queue = list(reversed(jobs))
        running: set[Future[_T]] = set()
        while (queue and not stop.is_set()) or running:
            while queue and len(running) < workers and not stop.is_set():
                running.add(pool.submit(work, queue.pop()))
            finished, _ = wait(running, timeout=0.25, return_when=FIRST_COMPLETED)
            for future in finished:
                running.discard(future)
                try:
                    yield future.result()
                except _Aborted:
                    continue


def _batched(
    evaluator: _Evaluator,
    jobs: Sequence[_Job],
    workers: int,
    stop: threading.Event,
    start_runs: Callable[[list[tuple[Task, Implementation, bytes, PreparedImage]]], list[Any]],
) -> Iterator[tuple[RunRecord, bool]]:
    """Every job's key first (images built here, ``workers`` at once), then every run
    to execute handed to the backend in one call, each written as its outcome comes."""
    ready: list[_Begun] = []
    for begun in _dispatch(evaluator.begin, jobs, workers, stop):
        if begun.run is None:
            yield begun.record, begun.skipped
        else:
            ready.append(begun)
    if stop.is_set() or not ready:
        return
    try:
        started = start_runs([begun.run for begun in ready if begun.run])
    except RunCancelled:  # Ctrl-C between the last key and the submission
        return
    futures: dict[Future[ImplementationResult], _Begun] = dict(zip(started, ready, strict=True))
    while futures:
        finished, _ = wait(futures, timeout=0.25, return_when=FIRST_COMPLETED)
        for future in finished:
            begun = futures.pop(future)
            error = future.exception()
            try:
                yield (
                    evaluator.finish(begun, error if error is not None else future.result()),
                    False,
                )
            except _Aborted:
                continue


def _kept_log(test: TestFileResult) -> str:
    """The test's output, then the log files it wrote (the published verdict's evidence)."""
    text = str(test.log or "")
    if test.legacy_log is not None:
        text += f"\n--- the log files the test wrote in logs/ ({test.protocol}) ---\n"
        text += test.legacy_log
    return text
