"""Judge every run of an eval output folder: bounded concurrency, cached, resumable.

Worker threads (the openai client is synchronous and thread-safe, and the work is waiting
on the network) judge the runs; a semaphore in `JudgeClient` bounds the requests in
flight to ``config.concurrency``. There are more workers than slots, so that building
prompts and writing files overlaps with requests instead of holding a slot.
Per run: build the prompt, keep an up-to-date judgment already on disk, else take the
answer from the cache, else ask; an unreadable answer is asked again once and then
recorded as ``unparsed``; a server that never answers gives an ``unparsed`` judgment
with ``error`` set. Only real answers are cached, and only judgments with a category
are kept, so unparsed and unanswered runs are asked again next time. A bad key or an
unknown model stops the batch, and so does a server that is down (the shared client's
circuit breaker): every other request would fail the same way.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from lmr_author.domain.task import Task, is_task_dir, load_task
from lmr_author.domain.three_way import UNPARSED, short_name
from lmr_author.eval_output import StoredRun
from lmr_author.judge.cache import JudgeCache, cache_key
from lmr_author.judge.client import (
    JudgeClient,
    JudgeFatalError,
    JudgeRequestError,
    ServiceDown,
    Usage,
)
from lmr_author.judge.config import JudgeConfig
from lmr_author.judge.inputs import find_runs, read_benchmark_path
from lmr_author.judge.parse import parse_judge_answer
from lmr_author.judge.prompt import REASK, JudgePrompt, build_prompt, load_template
from lmr_author.judge.store import (
    JUDGMENTS_DIR,
    Judgment,
    judgment_path,
    load_judgments,
    read_judgment,
)
from lmr_author.judge.store import save_judgment as _save
from lmr_author.judge.summary import JudgeSummary, summarize_systems
from lmr_author.llm.prompt_template import PromptTemplate
from lmr_author.util.atomic import atomic_write_json
from lmr_author.util.errors import UserError
from lmr_author.util.json_input import read_text

#: The summary of the last judging run, beside the judgments (token usage, counts).
SUMMARY_FILE = "summary.json"
REASK_SEPARATOR = "\n\n----- asked again -----\n\n"


@dataclass(frozen=True)
class _Outcome:
    kind: str  # "kept" | "cached" | "asked" | "skipped"
    judgment: Judgment | None = None
    usage: Usage = field(default_factory=Usage)
    problem: str | None = None
    #: Why the server gave no answer, and where it was asked (for the terminal).
    cause: str | None = None
    url: str | None = None
    #: The request this run's judgment answers (kept, cached or asked): the judgments
    #: on disk that count in this run's table are exactly those of these requests.
    key: str | None = None


class Batch:
    """The shared state of one judging run (read-only after construction)."""

    def __init__(
        self, output_dir: Path, config: JudgeConfig, force: bool, template: PromptTemplate
    ) -> None:
        self.output_dir = output_dir
        self.config = config
        self.force = force
        self.template = template
        self.benchmark = read_benchmark_path(output_dir)
        self.cache = JudgeCache(config.cache_dir)
        self.client = JudgeClient(config)
        self.stop = threading.Event()
        self.fatal: str | None = None
        #: Why the batch stopped early because the server is down (the breaker opened).
        self.down: str | None = None
        self._tasks: dict[str, Task | str] = {}
        self._lock = threading.Lock()

    def task(self, name: str) -> Task:
        with self._lock:
            if name not in self._tasks:
                try:
                    # 'eval TASK_FOLDER' records the task folder itself as the benchmark.
                    one = is_task_dir(self.benchmark) and self.benchmark.name == name
                    self._tasks[name] = load_task(self.benchmark if one else self.benchmark / name)
                except UserError as error:
                    self._tasks[name] = str(error)
            found = self._tasks[name]
        if isinstance(found, str):
            raise UserError(found)
        return found

    def prompt(self, run: StoredRun) -> JudgePrompt:
        task = self.task(run.task)
        impl = task.implementation(run.implementation)
        golden = read_text(impl.golden_path, what="golden file")
        candidate = read_text(run.candidate_path, what="candidate")
        return build_prompt(
            self.template,
            impl,
            task_name=run.task,
            golden_source=golden,
            candidate_source=candidate,
            scope=self.config.scope,
        )

    def up_to_date(self, run: StoredRun, key: str) -> bool:
        """A judgment on disk answered this very request for this very candidate."""
        path = judgment_path(self.output_dir, run.system, run.task, run.implementation)
        if self.force or not path.is_file():
            return False
        try:
            old = read_judgment(path)
        except UserError:
            return False
        return (
            old.error is None
            and old.category is not None
            and old.candidate_sha256 == run.candidate_sha256
            and old.request_key == key
        )

    def key(self, prompt: JudgePrompt) -> str:
        """The cache key of the request this prompt makes."""
        config = self.config
        return cache_key(self.client.endpoint, config.model, config.parameters(), prompt.messages)

    def cached(self, key: str) -> dict[str, Any] | None:
        """The cached answer to use for ``key`` (none with ``--force`` or ``--no-cache``)."""
        return self.cache.get_answer(key) if self.config.use_cache and not self.force else None

    def judge(self, run: StoredRun) -> _Outcome:
        where = f"{run.system}/{run.task}/{run.implementation}"
        try:
            prompt = self.prompt(run)
        except UserError as error:
            if self.stop.is_set():
                return _Outcome("skipped")
            return _Outcome("skipped", problem=f"{where}: {error}; not judged")
        key = self.key(prompt)
        # Checked even once the batch has stopped: an up-to-date judgment still counts.
        if self.up_to_date(run, key):
            return _Outcome("kept", key=key)
        if self.stop.is_set():
            return _Outcome("skipped")
        entry = self.cached(key)
        if entry is not None:
            judgment = self._judgment(run, prompt, key, entry, cached=True)
            _save(self.output_dir, judgment)
            return _Outcome("cached", judgment, key=key)
        try:
            entry = self._ask(prompt.messages)
        except ServiceDown as error:
            self.down = self.down or str(error)
            self.stop.set()
            return _Outcome("skipped")
        except JudgeFatalError as error:
            self.fatal = str(error)
            self.stop.set()
            return _Outcome("skipped")
        spent = Usage.from_json(entry.get("usage"))
        self.cache.put_answer(key, entry)
        judgment = self._judgment(run, prompt, key, entry, cached=False)
        _save(self.output_dir, judgment)
        return _Outcome(
            "asked",
            judgment,
            usage=spent,
            cause=entry.get("cause"),
            url=entry.get("url"),
            key=key,
        )

    def _ask(self, messages: list[dict[str, str]]) -> dict[str, Any]:
        """Ask, and ask again once if the answer cannot be read; never raises for a bad answer."""
        usage = Usage()
        try:
            first = self.client.complete(messages)
        except (JudgeFatalError, ServiceDown):
            raise
        except JudgeRequestError as failure:
            return {
                "raw": "",
                "category": None,
                "rationale": [],
                "error": str(failure),
                "cause": failure.cause,
                "url": failure.url,
            }
        usage += first.usage
        parsed = parse_judge_answer(first.text)
        raw = first.text
        error: str | None = None
        cause: str | None = None
        url: str | None = None
        if parsed is None:
            followup = [
                *messages,
                {"role": "assistant", "content": first.text},
                {"role": "user", "content": REASK},
            ]
            try:
                second = self.client.complete(followup)
            except (JudgeFatalError, ServiceDown):
                raise
            except JudgeRequestError as failure:
                error = str(failure)  # recorded; this judgment is asked again next run
                cause, url = failure.cause, failure.url
            else:
                usage += second.usage
                parsed = parse_judge_answer(second.text)
                raw = second.text if parsed is not None else raw + REASK_SEPARATOR + second.text
        return {
            "raw": raw,
            "category": parsed.category if parsed else None,
            "rationale": list(parsed.rationale) if parsed else [],
            "usage": usage.to_json(),
            "error": error,
            "cause": cause,
            "url": url,
        }

    def _judgment(
        self,
        run: StoredRun,
        prompt: JudgePrompt,
        key: str,
        entry: dict[str, Any],
        *,
        cached: bool,
    ) -> Judgment:
        category = entry.get("category")
        category = category if category in (1, 2, 3) else None
        rationale = entry.get("rationale")
        error = entry.get("error")
        return Judgment(
            system=run.system,
            task=run.task,
            implementation=run.implementation,
            candidate_sha256=run.candidate_sha256,
            category=category,
            label=short_name(category),
            rationale=[str(r) for r in rationale] if isinstance(rationale, list) else [],
            raw=str(entry.get("raw", "")),
            model=self.config.model,
            endpoint=self.client.endpoint,
            scope=prompt.scope,
            prompt_sha256=prompt.sha256,
            usage=Usage.from_json(entry.get("usage")),
            cached=cached,
            error=error if isinstance(error, str) else None,
            judged_at=datetime.now(UTC).isoformat(timespec="seconds"),
            request_key=key,
        )


def run_judging(
    output_dir: Path,
    config: JudgeConfig,
    *,
    force: bool = False,
    on_progress: Callable[[int, int], None] | None = None,
) -> JudgeSummary:
    """Judge the runs of an eval output folder and return the per-system summary.

    ``on_progress(done, total)`` is called once before the first run (``done`` 0) and
    after each run, from the calling thread.

    Judgments already on disk for the same candidate, prompt and model are kept unless
    ``force``; answers come from the on-disk cache unless ``config.use_cache`` is off.
    Raises `UserError` for an unusable folder or template, and when the endpoint refuses
    the key or does not know the model (judgments made until then are kept).
    """
    started = time.monotonic()
    output_dir = Path(output_dir)
    template = load_template(config.template)
    batch = Batch(output_dir, config, force, template)
    runs, problems = find_runs(output_dir)
    summary = JudgeSummary(model=config.model, endpoint=batch.client.endpoint)
    summary.problems.extend(problems)
    workers = config.concurrency + min(config.concurrency, 8)
    current: set[str] = set()
    pool = ThreadPoolExecutor(workers, thread_name_prefix="judge")
    try:
        report = on_progress or _ignore_progress
        report(0, len(runs))
        futures = [pool.submit(batch.judge, run) for run in runs]
        for done, future in enumerate(as_completed(futures), start=1):
            outcome = future.result()
            _tally(summary, outcome)
            if outcome.key is not None:
                current.add(outcome.key)
            report(done, len(runs))
    except BaseException:
        # Ctrl-C or a bug: start nothing new; requests in flight end within the time-out.
        batch.stop.set()
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    finally:
        pool.shutdown(wait=True)
        batch.client.close()
    summary.requests = batch.client.requests
    summary.retries = batch.client.retries
    summary.stopped = batch.down
    if batch.fatal is not None:
        raise UserError(
            f"the judge endpoint refused the request: {batch.fatal}",
            hint="Check the API key (--api-key-env), --base-url and --model; "
            "judgments made so far are kept.",
        )
    judgments = load_judgments(output_dir)
    for judgment in judgments:
        summary.usage_total += judgment.usage
    # Only judgments of this run's requests (model, endpoint, parameters, prompt) count:
    # another model's judgments left on disk, e.g. when the server was down, are not
    # this model's and show as without an answer.
    summary.systems = summarize_systems(
        runs, [j for j in judgments if j.request_key and j.request_key in current]
    )
    summary.duration_s = time.monotonic() - started
    atomic_write_json(output_dir / JUDGMENTS_DIR / SUMMARY_FILE, summary.to_json(), indent=2)
    return summary


def _ignore_progress(done: int, total: int) -> None:
    pass


def _tally(summary: JudgeSummary, outcome: _Outcome) -> None:
    if outcome.problem:
        summary.problems.append(outcome.problem)
    if outcome.kind == "kept":
        summary.kept += 1
    elif outcome.kind == "cached":
        summary.cached += 1
    elif outcome.kind == "asked":
        summary.asked += 1
        summary.usage += outcome.usage
    elif outcome.kind == "skipped" and not outcome.problem:
        summary.not_asked += 1
    judgment = outcome.judgment
    if judgment is not None and outcome.kind != "kept":
        if judgment.error is not None:
            summary.errors += 1
            cause = outcome.cause or judgment.error
            summary.failures[cause] = summary.failures.get(cause, 0) + 1
            summary.failure_url = outcome.url or summary.failure_url
        else:
            summary.unparsed += judgment.label == UNPARSED


def summarize_output(output_dir: Path) -> JudgeSummary:
    """The summary of what is on disk, without judging anything."""
    runs, problems = find_runs(Path(output_dir))
    judgments = load_judgments(Path(output_dir))
    summary = JudgeSummary(problems=problems)
    for judgment in judgments:
        summary.usage_total += judgment.usage
    summary.systems = summarize_systems(runs, judgments)
    return summary
