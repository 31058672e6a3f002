"""The scorers: lmr-author's verdict of a sample, and the LLM judge's label of it.

``lmr_verdict`` scores the sample's candidate as ``lmr-author eval`` does
(`lmr_author.inspect_bridge.runs`): the value is ``C`` for a pass and ``I`` otherwise,
the explanation is the run's reason with each failing test's reason and output, capped
(`lmr_author.inspect_bridge.explain`), and the metadata hold those failures, the whole
run record, the candidate and the test logs, which is what
`lmr_author.inspect_bridge.logs` turns back into an eval output folder for ``lmr-author
report``. Its metric ``unit_test_accuracy`` is the paper's, as ``eval`` computes it:
infrastructure failures are left out (and counted by ``infra_errors``). ``lmr_judge``
asks the judge of ``eval --judge`` about the same run; its value is the three-way label
(CC, LC, LI).

The system a run is recorded under is ``-T system=NAME``, else the model's name (as
``generate`` names it); epoch k > 1 of an item is ``NAME+s<k>`` (and every epoch is when
the task runs several), the names ``report`` reads pass@k from.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any

import anyio
from inspect_ai.scorer import (
    Metric,
    SampleScore,
    Score,
    Scorer,
    Target,
    metric,
    scorer,
)
from inspect_ai.solver import TaskState
from inspect_ai.util import sandbox

from lmr_author.domain.task import load_task
from lmr_author.domain.three_way import ThreeWayLabel
from lmr_author.domain.verdicts import INFRA_ERROR, PASS, counts_for_accuracy
from lmr_author.eval_loop.submissions import check_system_name
from lmr_author.generation.samples import sample_system
from lmr_author.inspect_bridge.explain import explanation, failures
from lmr_author.inspect_bridge.runs import Judge, ScoredRun
from lmr_author.inspect_bridge.runs import Scorer as RunScorer
from lmr_author.inspect_bridge.samples import ItemMeta

#: The metadata key of the run record in a verdict score, and the scorers' names.
RUN = "lmr_run"
#: The metadata key of the test files that did not pass (`explain.TestFailure`, capped).
FAILURES = "lmr_failures"
JUDGMENT = "lmr_judgment"
VERDICT_SCORER = "lmr_verdict"
JUDGE_SCORER = "lmr_judge"
#: A workspace read back from an agent's container is refused past this size.
MAX_WORKSPACE_BYTES = 256 << 20


def _verdict(score: SampleScore) -> str | None:
    run = (score.score.metadata or {}).get(RUN)
    return str(run.get("verdict")) if isinstance(run, dict) else None


# Metrics see every epoch's score ("unreduced"): a reduced score keeps the metadata of
# its first epoch only, and the verdicts are in the metadata.
@metric(scores="unreduced")
def unit_test_accuracy() -> Metric:
    """Passed runs over counted runs (infrastructure failures are not counted)."""

    def compute(scores: list[SampleScore]) -> float:
        verdicts = [v for v in map(_verdict, scores) if v is not None and counts_for_accuracy(v)]
        return sum(v == PASS for v in verdicts) / len(verdicts) if verdicts else 0.0

    return compute


@metric(scores="unreduced")
def infra_errors() -> Metric:
    """Runs that failed for reasons of infrastructure (left out of the accuracy)."""

    def compute(scores: list[SampleScore]) -> float:
        return float(sum(_verdict(score) == INFRA_ERROR for score in scores))

    return compute


def system_name(state: TaskState, system: str | None, epochs: int) -> str:
    """The system a sample's run is recorded under (see the module's docstring)."""
    base = system or str(state.model).replace("/", "_").replace(":", "_")
    check_system_name(base, origin="-T system (or the model's name)")
    if epochs > 1 or state.epoch > 1:
        return sample_system(base, state.epoch, max(epochs, state.epoch, 2))
    return base


@scorer(metrics=[unit_test_accuracy(), infra_errors()], name=VERDICT_SCORER)
def lmr_verdict(
    benchmark: str,
    output: str,
    system: str | None = None,
    epochs: int = 1,
    workers: int = 1,
    base_image: str | None = None,
    timeout: float | None = None,
) -> Scorer:
    """The unit-test verdict of ``lmr-author eval`` (runs written under ``output``)."""
    runs = RunScorer(
        Path(benchmark), Path(output), workers=workers, base_image=base_image, timeout_s=timeout
    )

    async def score(state: TaskState, target: Target) -> Score:
        meta = ItemMeta.of(state.metadata)
        task = load_task(Path(meta.task_dir))
        impl = task.implementation(meta.implementation)
        name = system_name(state, system, epochs)
        if meta.workspace is None:
            answer = state.output.completion
            scored = await anyio.to_thread.run_sync(runs.score_prediction, name, task, impl, answer)
        else:
            answer = ""
            scored = await _score_workspace(runs, name, task, impl, meta)
        return _as_score(scored, answer)

    return score


async def _score_workspace(
    runs: RunScorer, system: str, task: Any, impl: Any, meta: ItemMeta
) -> ScoredRun:
    """Read the agent's workspace back (all of it, as data) and collect its goal function."""
    from lmr_author.inspect_bridge.container import unpack_to
    from lmr_author.inspect_bridge.sandbox import LmrSandboxEnvironment

    try:
        environment = sandbox().as_type(LmrSandboxEnvironment)
    except TypeError as error:
        raise TypeError(
            f"the agent's workspace is read from the lmr-author sandbox: {error}"
        ) from None
    scratch = Path(tempfile.mkdtemp(prefix="lmr-inspect-ws-"))
    try:
        folder = scratch / "workspace"
        too_big = ""
        try:
            archive = await anyio.to_thread.run_sync(
                lambda: environment.container.pack(cap=MAX_WORKSPACE_BYTES)
            )
        except OverflowError as error:  # the agent's doing: nothing of it is scored
            too_big, archive = str(error), b""
        if archive:
            await anyio.to_thread.run_sync(unpack_to, archive, folder)
        else:
            folder.mkdir()
        scored = await anyio.to_thread.run_sync(
            runs.score_workspace, system, task, impl, meta.entry(), meta.setting, folder
        )
        scored.collect_reason = too_big or scored.collect_reason
        return scored
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _as_score(scored: ScoredRun, answer: str) -> Score:
    record = scored.record
    notes = []
    if scored.collect_reason:
        notes.append(f" ({scored.collect_reason})")
    if scored.changes:
        notes.append("; not scored: " + "; ".join(scored.changes))
    candidate = None if scored.candidate is None else scored.candidate.decode("utf-8", "replace")
    return Score(
        value="C" if record.verdict == PASS else "I",
        answer=answer or None,
        explanation=explanation(record, scored.logs, notes),
        metadata={
            RUN: record.to_json(),
            FAILURES: [failure.to_json() for failure in failures(record, scored.logs)],
            "candidate": candidate,
            "prediction": scored.prediction,
            "logs": scored.logs,
            "changes": scored.changes,
        },
    )


def _label(score: SampleScore) -> str | None:
    """The judge's label of one score ("unparsed" for an answer without one)."""
    judgment = (score.score.metadata or {}).get(JUDGMENT)
    if not isinstance(judgment, dict):
        return None
    label = ThreeWayLabel.parse(judgment.get("category"))
    return label.short if label is not None else "unparsed"


def _label_share(label: str) -> Metric:
    """Among judged runs (an unreadable answer included, as ``judge`` counts it)."""

    def compute(scores: list[SampleScore]) -> float:
        labels = [found for found in map(_label, scores) if found is not None]
        return sum(found == label for found in labels) / len(labels) if labels else 0.0

    return compute


@metric(name="CC", scores="unreduced")
def completely_correct() -> Metric:
    """The judge's share of completely correct candidates among those it judged."""
    return _label_share("CC")


@metric(name="LC", scores="unreduced")
def logically_correct() -> Metric:
    """The judge's share of logically correct candidates with implementation errors."""
    return _label_share("LC")


@metric(name="LI", scores="unreduced")
def logically_incorrect() -> Metric:
    """The judge's share of logically incorrect candidates."""
    return _label_share("LI")


@scorer(
    metrics=[completely_correct(), logically_correct(), logically_incorrect()], name=JUDGE_SCORER
)
def lmr_judge(output: str) -> Scorer:
    """The LLM judge of ``eval --judge`` on the run ``lmr_verdict`` just wrote.

    The endpoint is the judge's (``OPENAI_BASE_URL``, ``OPENAI_API_KEY``,
    ``OPENAI_MODEL``), read here so that no key enters the log.
    """
    from lmr_author.judge import config_from_env

    judge = Judge(Path(output), config_from_env())

    async def score(state: TaskState, target: Target) -> Score:
        from lmr_author.eval_output import RunRecord

        verdict = (state.scores or {}).get(VERDICT_SCORER)
        run = (verdict.metadata or {}).get(RUN) if verdict is not None else None
        if not isinstance(run, dict):
            return Score(value="none", explanation=f"{VERDICT_SCORER} did not score this sample")
        judgment, why = await anyio.to_thread.run_sync(judge.judge, RunRecord.from_json(run))
        label = ThreeWayLabel.parse((judgment or {}).get("category"))
        return Score(
            value=label.short if label is not None else "none",
            explanation="; ".join((judgment or {}).get("rationale", [])) or why,
            metadata={JUDGMENT: judgment},
        )

    return score
