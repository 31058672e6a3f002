"""`generate`: the paper's standard-prompting baseline, asked through the shared LLM client.

For every implementation (and sample) the appendix-D prompt of `lmr_author.generation.prompt`
is built, and the answer is checked with the libcst splice engine the way `eval` will
splice it. A plan comes first: each request is *kept* (the predictions file already holds
the answer to this exact request), *cached* (the on-disk cache has it) or *asked*; a dry
run stops at the plan. Asking goes through `lmr_author.llm` (retries, circuit breaker,
concurrency); answers are cached by the exact request, so a rerun asks nothing, and the
predictions file is rewritten atomically after each answer, so Ctrl-C loses nothing.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from lmr_author.domain.task import Implementation, Task
from lmr_author.eval_loop.submissions import check_system_name
from lmr_author.generation.predictions import PredictionRecord, read_records, write_records
from lmr_author.generation.prompt import (
    Prompt,
    PromptTooLongError,
    Setting,
    build_prompt,
    load_inputs,
    load_template,
)
from lmr_author.generation.samples import sample_system
from lmr_author.llm import (
    ChatClient,
    ClientSettings,
    LLMError,
    LLMFatalError,
    ResponseCache,
    ServiceDown,
    Usage,
    estimate_cost,
    price_for,
    request_key,
)
from lmr_author.llm.endpoint import NO_KEY, resolve_endpoint
from lmr_author.llm.prompt_template import PromptTemplate
from lmr_author.llm.request_pool import RequestPool
from lmr_author.util.errors import UserError

#: The endpoint the openai client uses when none is given (part of the cache key).
OPENAI_ENDPOINT = "https://api.openai.com/v1"
#: The default prompt budget: a 128k-token context minus room for the answer.
DEFAULT_PROMPT_BUDGET = 120_000
#: Completion tokens assumed per request in a dry run's cost estimate without max_tokens.
ASSUMED_ANSWER_TOKENS = 600
CACHE_NAMESPACE = "generate"
CACHE_VERSION = 1

State = Literal["kept", "cached", "ask"]


@dataclass(frozen=True)
class GenerateConfig:
    """Everything that decides what is asked, and how: the LLM settings (`llm`, the one
    type the judge and the instruction draft use too) and what is `generate`'s own."""

    llm: ClientSettings
    system: str | None = None  # default: the model's name
    setting: Setting = Setting.FULL
    samples: int = 1
    max_prompt_tokens: int | None = DEFAULT_PROMPT_BUDGET
    use_cache: bool = True
    cache_dir: Path | None = None
    template: Path | None = None
    price_in: float | None = None
    price_out: float | None = None

    def __post_init__(self) -> None:
        if self.samples < 1:
            raise UserError("--samples must be 1 or more")
        if self.llm.concurrency < 1:
            raise UserError("--concurrency must be 1 or more")
        if self.max_prompt_tokens is not None and self.max_prompt_tokens < 1:
            raise UserError("--max-prompt-tokens must be a positive number of tokens")
        check_system_name(self.system_name, origin="--system (or the model's name)")

    @classmethod
    def of(cls, **options: Any) -> GenerateConfig:
        """A config from flat options (the LLM settings' and generate's own, mixed)."""
        llm, own = ClientSettings.split(options)
        llm.setdefault("api_key", NO_KEY)
        return cls(llm=ClientSettings(**llm), **own)

    @property
    def model(self) -> str:
        return self.llm.model

    @property
    def max_tokens(self) -> int | None:
        return self.llm.max_tokens

    @property
    def concurrency(self) -> int:
        return self.llm.concurrency

    @property
    def system_name(self) -> str:
        return self.system or self.model.replace("/", "_").replace(":", "_")

    @property
    def endpoint(self) -> str:
        return (self.llm.base_url or OPENAI_ENDPOINT).rstrip("/")

    def parameters(self) -> dict[str, Any]:
        """Sampling parameters sent with every request (part of the cache key)."""
        return self.llm.parameters


def config_from_env(
    *,
    model: str | None,
    base_url: str | None,
    api_key_env: str = "OPENAI_API_KEY",
    require_endpoint: bool = True,
    environ: Mapping[str, str] | None = None,
    **options: Any,
) -> GenerateConfig:
    """A config from flags, falling back to the ``OPENAI_*`` environment variables."""
    endpoint = resolve_endpoint(
        base_url=base_url, api_key_env=api_key_env, model=model, environ=environ
    )
    if require_endpoint and not endpoint.configured:
        raise UserError(
            "no LLM endpoint is configured",
            hint="Set OPENAI_API_KEY (for OpenAI) or OPENAI_BASE_URL (for a compatible "
            "server), or pass --base-url; --dry-run works without one.",
        )
    if not endpoint.model:
        raise UserError("no model is named", hint="Pass --model NAME or set OPENAI_MODEL.")
    return GenerateConfig.of(
        model=endpoint.model,
        api_key=endpoint.api_key or NO_KEY,
        base_url=endpoint.base_url,
        **options,
    )


@dataclass
class PlannedRequest:
    """One implementation × sample: its prompt, its request key and what will happen."""

    task: Task
    implementation: Implementation
    sample: int
    system: str
    prompt: Prompt
    key: str
    state: State = "ask"
    kept: PredictionRecord | None = None
    cached_text: str = ""
    cached_usage: Usage = field(default_factory=Usage)

    @property
    def item(self) -> str:
        return f"{self.task.name}#{self.implementation.index}"


@dataclass
class Plan:
    """What a run would do, before anything is asked."""

    config: GenerateConfig
    requests: list[PlannedRequest]
    #: Records of the predictions file that this run leaves alone (other tasks/systems).
    untouched: list[PredictionRecord] = field(default_factory=list)
    #: Items whose prompt does not fit the budget even after every cut: never asked.
    too_long: list[str] = field(default_factory=list)
    #: Items whose inputs cannot be read (no paper.json, ...): never asked.
    unready: list[str] = field(default_factory=list)
    #: ``--line`` choices: (task, implementation) -> line of the masked goal file.
    goal_lines: dict[tuple[str, int], int] = field(default_factory=dict)

    def count(self, state: State) -> int:
        return sum(1 for r in self.requests if r.state == state)

    @property
    def to_ask(self) -> list[PlannedRequest]:
        return [r for r in self.requests if r.state == "ask"]

    @property
    def prompt_tokens_to_ask(self) -> int:
        return sum(r.prompt.estimated_tokens for r in self.to_ask)

    def estimated_cost(self) -> float | None:
        """Dollars for the requests to ask, with an assumed answer length."""
        price = price_for(
            self.config.model, price_in=self.config.price_in, price_out=self.config.price_out
        )
        answer = self.config.max_tokens or ASSUMED_ANSWER_TOKENS
        usage = Usage(self.prompt_tokens_to_ask, answer * len(self.to_ask), 0)
        return estimate_cost(usage, price)


def plan_generation(
    tasks: Sequence[Task], config: GenerateConfig, out: Path, *, force: bool = False
) -> Plan:
    """Build every prompt and decide, per request, whether it must be asked."""
    template: PromptTemplate | None = (
        load_template(config.template) if config.template is not None else None
    )
    existing = {record.slot: record for record in read_records(out)}
    cache = ResponseCache(config.cache_dir, namespace=CACHE_NAMESPACE)
    requests: list[PlannedRequest] = []
    planned_slots: set[tuple[str, str, int]] = set()
    too_long: list[str] = []
    unready: list[str] = []
    for task in tasks:
        for impl in task.implementations:
            try:
                prompt = build_prompt(
                    load_inputs(task, impl),
                    config.setting,
                    max_tokens=config.max_prompt_tokens,
                    template=template,
                )
            except PromptTooLongError as error:  # this item's problem, not the run's
                too_long.append(error.message)
                continue
            except UserError as error:  # e.g. no paper.json: this task's, not the run's
                unready.append(f"{task.name}#{impl.index}: {' '.join(error.render().split())}")
                continue
            for sample in range(1, config.samples + 1):
                system = sample_system(config.system_name, sample, config.samples)
                key = request_key(
                    config.endpoint,
                    config.model,
                    {**config.parameters(), "sample": sample},
                    prompt.messages,
                    version=CACHE_VERSION,
                )
                planned = PlannedRequest(task, impl, sample, system, prompt, key)
                previous = existing.get((system, task.name, impl.index))
                planned_slots.add((system, task.name, impl.index))
                if not force and previous is not None and previous.request_key == key:
                    planned.state, planned.kept = "kept", previous
                elif not force and config.use_cache:
                    entry = cache.get(key, accept=_good_entry)
                    if entry is not None:
                        planned.state = "cached"
                        planned.cached_text = str(entry["text"])
                        planned.cached_usage = Usage.from_json(entry.get("usage"))
                requests.append(planned)
    untouched = [r for slot, r in existing.items() if slot not in planned_slots]
    return Plan(config, requests, untouched, too_long, unready)


def _good_entry(entry: dict[str, Any]) -> bool:
    text = entry.get("text")
    return isinstance(text, str) and bool(text.strip())


@dataclass
class GenerateSummary:
    """What a run did."""

    asked: int = 0
    cached: int = 0
    kept: int = 0
    failed: list[str] = field(default_factory=list)  # "01-DPO#1 sample 2: HTTP 500 ..."
    stopped: str = ""  # why the batch stopped early (service down, bad key)
    requests: int = 0  # HTTP requests, retries included
    retries: int = 0
    usage: Usage = field(default_factory=Usage)  # tokens of the requests of this run
    usage_total: Usage = field(default_factory=Usage)  # tokens behind every record
    cost: float | None = None
    cost_total: float | None = None
    unspliceable: list[str] = field(default_factory=list)
    too_long: list[str] = field(default_factory=list)  # prompts over the budget: not asked
    unready: list[str] = field(default_factory=list)  # inputs unreadable: not asked
    truncated: dict[str, list[str]] = field(default_factory=dict)  # item -> cuts
    records: int = 0
    duration_s: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "asked": self.asked,
            "cached": self.cached,
            "kept": self.kept,
            "failed": list(self.failed),
            "stopped": self.stopped,
            "requests": self.requests,
            "retries": self.retries,
            "usage": self.usage.to_json(),
            "usage_total": self.usage_total.to_json(),
            "estimated_cost_usd": self.cost,
            "estimated_cost_total_usd": self.cost_total,
            "unspliceable": list(self.unspliceable),
            "too_long": list(self.too_long),
            "unready": list(self.unready),
            "truncated": {k: list(v) for k, v in self.truncated.items()},
            "records": self.records,
            "duration_s": round(self.duration_s, 3),
        }


def splice_problem(
    task: Task, impl: Implementation, answer: str, *, line: int | None = None
) -> str:
    """Why ``answer`` cannot be spliced into the masked goal file ("" when it can);
    ``line`` chooses the goal's definition there (``--line``)."""
    from lmr_author.cst.splice import splice_function

    try:
        splice_function(
            impl.goal_path.read_bytes(),
            answer,
            impl.goal_function,
            impl.class_name,
            line=line,
            filename=f"{task.name}/{task.repo_folder_name}/{impl.goal_file}",
        )
    except Exception as error:  # SpliceError, or anything libcst raises on odd input
        return " ".join(str(error).split())
    return ""


def run_generation(
    plan: Plan,
    out: Path,
    *,
    client_factory: Callable[[ClientSettings], ChatClient] = ChatClient,
    on_progress: Callable[[int, int], None] | None = None,
) -> GenerateSummary:
    """Ask what the plan says, write the predictions file after every answer."""
    config = plan.config
    started = time.monotonic()
    summary = GenerateSummary(too_long=list(plan.too_long), unready=list(plan.unready))
    cache = ResponseCache(config.cache_dir, namespace=CACHE_NAMESPACE)
    records: dict[tuple[str, str, int], PredictionRecord] = {r.slot: r for r in plan.untouched}
    lock = threading.Lock()
    total = len(plan.requests)
    done = 0

    def record(
        planned: PlannedRequest, text: str, usage: Usage, cached: bool, *, write: bool = True
    ) -> None:
        nonlocal done
        new = PredictionRecord(
            task=planned.task.name,
            implementation=planned.implementation.index,
            system=planned.system,
            source=text,
            sample=planned.sample,
            setting=str(config.setting),
            model=config.model,
            request_key=planned.key,
            prompt_tokens_estimate=planned.prompt.estimated_tokens,
            usage=usage,
            truncations=tuple(t.describe() for t in planned.prompt.truncations),
            cached=cached,
            splice_error=splice_problem(
                planned.task,
                planned.implementation,
                text,
                line=plan.goal_lines.get((planned.task.name, planned.implementation.index)),
            ),
        )
        with lock:
            records[new.slot] = new
            if not cached:
                summary.usage = summary.usage + usage
            if write:
                write_records(out, list(records.values()))
            done += 1
            if on_progress is not None:
                on_progress(done, total)

    for planned in plan.requests:
        if planned.prompt.truncated:
            summary.truncated[planned.item] = [t.describe() for t in planned.prompt.truncations]
        if planned.state == "kept" and planned.kept is not None:
            records[planned.kept.slot] = planned.kept
            summary.kept += 1
    with lock:
        write_records(out, list(records.values()))
        done = summary.kept
    for planned in plan.requests:
        if planned.state == "cached":  # no waiting here: one write for all of them
            record(planned, planned.cached_text, planned.cached_usage, cached=True, write=False)
            summary.cached += 1
    if summary.cached:
        with lock:
            write_records(out, list(records.values()))
    to_ask = plan.to_ask
    if to_ask:
        client = client_factory(config.llm)
        try:
            _ask_all(client, to_ask, cache, record, summary)
        finally:
            summary.requests, summary.retries = client.requests, client.retries
            client.close()
    price = price_for(config.model, price_in=config.price_in, price_out=config.price_out)
    summary.usage_total = sum((r.usage for r in records.values()), Usage())
    summary.cost = estimate_cost(summary.usage, price)
    summary.cost_total = estimate_cost(summary.usage_total, price)
    # In task order (the plan's), not in the order the answers came back.
    slots = dict.fromkeys((r.system, r.task.name, r.implementation.index) for r in plan.requests)
    summary.unspliceable = [
        f"{r.task}#{r.implementation} ({r.system}): {r.splice_error}"
        for r in (records.get(slot) for slot in slots)
        if r is not None and r.splice_error
    ]
    summary.records = len(records)
    summary.duration_s = time.monotonic() - started
    return summary


def _ask_all(
    client: ChatClient,
    to_ask: list[PlannedRequest],
    cache: ResponseCache,
    record: Callable[[PlannedRequest, str, Usage, bool], None],
    summary: GenerateSummary,
) -> None:
    """Ask every request with ``client.settings.concurrency`` in flight; stop on a dead
    service or a bad key; Ctrl-C cancels what has not started (answers so far are kept)."""

    def ask(planned: PlannedRequest) -> None:
        completion = client.complete(planned.prompt.messages)
        entry = {"text": completion.text, "usage": completion.usage.to_json()}
        cache.put(planned.key, entry, good=_good_entry(entry))
        record(planned, completion.text, completion.usage, False)

    pool: RequestPool[PlannedRequest, None] = RequestPool(client.settings.concurrency, "generate")
    futures: dict[Future[None], PlannedRequest] = {pool.submit(ask, p): p for p in to_ask}
    # Failures are listed in task order (the plan's), not in the order they happened.
    position = {id(planned): index for index, planned in enumerate(to_ask)}
    failed: list[tuple[int, str]] = []
    try:
        pending = set(futures)
        while pending:
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                planned = futures[future]
                if future.cancelled():
                    continue
                error = future.exception()
                if error is None:
                    summary.asked += 1
                    continue
                if isinstance(error, ServiceDown | LLMFatalError):
                    summary.stopped = str(error)
                    for other in pending:
                        other.cancel()
                if not isinstance(error, LLMError):
                    raise error
                failed.append(
                    (position[id(planned)], f"{planned.item} sample {planned.sample}: {error}")
                )
    except BaseException:
        # Ctrl-C (or a bug): cancel what has not started, do not wait for what is on
        # the wire; every answer recorded so far is already in the predictions file.
        pool.shutdown(cancel=True)
        raise
    finally:
        summary.failed.extend(text for _, text in sorted(failed))
    pool.shutdown(cancel=False)
