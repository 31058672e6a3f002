"""One candidate of an Inspect sample scored exactly as ``lmr-author eval`` scores it.

A prompting sample's answer becomes one line of a predictions file, an agent's
workspace becomes a collected submission (`lmr_author.workspaces.collect`, the goal
function only); both are read by `lmr_author.eval_loop.load_candidates` and run by the
evaluator of `lmr_author.eval_loop.pool` against the task's image, into a real eval
output folder: the run record, its key (so a candidate already scored there is not run
again), the candidate and the test logs. ``lmr-author report``, ``judge`` and ``eval
--human-review`` read that folder as any other, and the record travels in the Inspect
log too (`lmr_author.inspect_bridge.logs`).

The evaluation package runs whole submissions (`run_evaluation`); one run of one
candidate is its private ``_Evaluator.execute``, used here until it is public.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lmr_author.domain.task import Implementation, Task
from lmr_author.eval_loop import DockerBackend, Submission
from lmr_author.eval_loop.pool import _Evaluator, plan_jobs
from lmr_author.eval_output import RunRecord, run_dir
from lmr_author.eval_output.results import build_results, save_results
from lmr_author.workspaces.manifest import Manifest, WorkspaceEntry

#: Test logs kept in an Inspect log, per test file (the eval output folder has them all).
MAX_LOG_CHARS = 200_000


@dataclass
class ScoredRun:
    """What one scoring gave: the run record and what it was made from."""

    record: RunRecord
    candidate: bytes | None
    prediction: str | None
    logs: dict[str, str] = field(default_factory=dict)
    #: Agent samples: why nothing was collected, and the changes outside the goal function.
    collect_reason: str = ""
    changes: list[str] = field(default_factory=list)
    judgment: dict[str, Any] | None = None


_folder_locks: dict[Path, threading.Lock] = {}
_folder_locks_guard = threading.Lock()


def _folder_lock(output: Path) -> threading.Lock:
    """One lock per output folder in this process (several tasks of one eval may share it)."""
    with _folder_locks_guard:
        return _folder_locks.setdefault(output.resolve(), threading.Lock())


class Scorer:
    """The unit-test half of ``eval`` for one Inspect task: one output folder, one backend."""

    def __init__(
        self,
        benchmark: Path,
        output: Path,
        *,
        workers: int = 1,
        backend: Any = None,
        base_image: str | None = None,
        timeout_s: float | None = None,
    ) -> None:
        self.benchmark = Path(benchmark).resolve()
        self.output = Path(output)
        self.backend = backend or DockerBackend(base_image=base_image, timeout_s=timeout_s)
        self._evaluator: _Evaluator | None = None
        self._slots = threading.BoundedSemaphore(max(1, workers))
        self._lock = threading.Lock()

    def evaluator(self) -> _Evaluator:
        with self._lock:
            if self._evaluator is None:
                self.output.mkdir(parents=True, exist_ok=True)
                self._evaluator = _Evaluator(self.output, self.backend, force=False)
            return self._evaluator

    def score_prediction(
        self, system: str, task: Task, impl: Implementation, source: str
    ) -> ScoredRun:
        """Score ``source`` (a model's answer) as a predictions file line would be."""
        line = {"task": task.name, "implementation": impl.index, "system": system}
        with tempfile.TemporaryDirectory(prefix="lmr-inspect-") as scratch:
            path = Path(scratch) / "predictions.jsonl"
            path.write_text(json.dumps({**line, "source": source}) + "\n", encoding="utf-8")
            return self._score(Submission(path), task, impl)

    def score_workspace(
        self,
        system: str,
        task: Task,
        impl: Implementation,
        entry: WorkspaceEntry,
        setting: str,
        workspace: Path,
    ) -> ScoredRun:
        """Collect the goal function from an agent's ``workspace`` and score it."""
        from lmr_author.workspaces import collect_workspaces

        with tempfile.TemporaryDirectory(prefix="lmr-inspect-") as scratch:
            prepared = Path(scratch) / "prepared"
            prepared.mkdir()
            (prepared / entry.task).mkdir()
            shutil.move(str(workspace), prepared / entry.path)
            manifest = Manifest(str(self.benchmark), setting, [entry])
            submission = Path(scratch) / "submission"
            report = collect_workspaces(prepared, manifest, [task], system, submission)
            scored = self._score(Submission(submission, system=system), task, impl)
        item = report.items[0]
        scored.collect_reason = item.reason if not item.collected else ""
        scored.changes = [change.describe() for change in report.changes]
        return scored

    def _score(self, submission: Submission, task: Task, impl: Implementation) -> ScoredRun:
        jobs = plan_jobs([submission], [task], whole_benchmark=False)
        (job,) = [j for j in jobs if j.candidate.implementation.index == impl.index]
        with self._slots:
            record, _skipped = self.evaluator().execute(job)
        with _folder_lock(self.output):  # results.json holds every run written so far
            save_results(self.output, build_results(self.output, str(self.benchmark)))
        folder = run_dir(self.output, record.system, record.task, record.implementation)
        logs: dict[str, str] = {}
        for test in record.tests:
            if test.log_file:
                text = (folder / test.log_file).read_text(encoding="utf-8", errors="replace")
                logs[test.test_file] = text[-MAX_LOG_CHARS:]
        return ScoredRun(record, job.candidate.source, job.candidate.prediction, logs)


class Judge:
    """The LLM judge of ``eval --judge`` on the runs of one `Scorer`'s output folder."""

    def __init__(self, output: Path, config: Any) -> None:
        self.output = Path(output)
        self.config = config
        self._batch: Any = None
        self._lock = threading.Lock()

    def judge(self, record: RunRecord) -> tuple[dict[str, Any] | None, str]:
        """The judgment of one stored run (asked, cached or kept), or None and why not."""
        from lmr_author.eval_output import judgment_path, stored_run
        from lmr_author.judge.prompt import load_template
        from lmr_author.judge.runner import Batch
        from lmr_author.judge.store import read_judgment

        with self._lock:  # needs results.json, which the first scored run wrote
            if self._batch is None:
                template = load_template(self.config.template)
                self._batch = Batch(self.output, self.config, False, template)
            batch = self._batch
        outcome = batch.judge(stored_run(self.output, record))
        if batch.fatal is not None:
            return None, f"the judge endpoint refused the request: {batch.fatal}"
        if batch.down is not None and outcome.judgment is None and outcome.kind != "kept":
            return None, f"the judge endpoint is down: {batch.down}"
        if outcome.problem:
            return None, outcome.problem
        path = judgment_path(self.output, record.system, record.task, record.implementation)
        if not path.is_file():
            return None, "not judged (no candidate to judge)"
        return read_judgment(path).to_json(), ""

    def close(self) -> None:
        with self._lock:
            if self._batch is not None:
                self._batch.client.close()
                self._batch = None
