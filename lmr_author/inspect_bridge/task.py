"""``lmr_author/lmr_bench``: an LMR-style benchmark as one Inspect task.

::

    inspect eval lmr_author/lmr_bench -T benchmark=benchmark --model openai/gpt-4o
    inspect eval lmr_author/lmr_bench -T benchmark=benchmark -T solver=agent --model ...
    inspect eval lmr_author/lmr_bench -T benchmark=benchmark \\
        -T replay=benchmark/submissions/predictions.jsonl -T system=correct

One sample per implementation (`lmr_author.inspect_bridge.samples`), solved by standard
prompting or by an agent in the task's image (`lmr_author.inspect_bridge.solvers`),
scored by lmr-author's verdict and, with ``-T judge=true``, the LLM judge
(`lmr_author.inspect_bridge.scorer`). ``replay`` answers with a predictions file's
functions through Inspect's mock model (`lmr_author.inspect_bridge.replay`), no
endpoint needed. The runs are written to a real eval output folder, ``output``
(default: a folder of the user cache per benchmark, so an unchanged candidate is not
run again), and into the Inspect log.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from inspect_ai import Task, task
from inspect_ai.scorer import Scorer
from inspect_ai.solver import Solver

from lmr_author.generation.prompt import Setting
from lmr_author.generation.runner import DEFAULT_PROMPT_BUDGET
from lmr_author.inspect_bridge.container import AgentLimits
from lmr_author.inspect_bridge.samples import agent_samples, prompting_samples
from lmr_author.inspect_bridge.scorer import lmr_judge, lmr_verdict
from lmr_author.inspect_bridge.solvers import lmr_agent, standard_prompting
from lmr_author.sandbox.limits import Limits
from lmr_author.util.errors import UserError

SOLVERS = ("prompting", "agent")


def default_output(benchmark: Path) -> Path:
    """The eval output folder of a benchmark's Inspect runs: one per benchmark folder."""
    from lmr_author.util.locations import cache_dir

    digest = hashlib.sha256(str(benchmark.resolve()).encode()).hexdigest()[:16]
    return cache_dir("inspect", f"{benchmark.resolve().name}-{digest}")


def _names(tasks: str | list[str] | None) -> list[str] | None:
    if tasks is None:
        return None
    items = tasks.split(",") if isinstance(tasks, str) else [str(t) for t in tasks]
    return [item.strip() for item in items if item.strip()] or None


@task
def lmr_bench(
    benchmark: str = "benchmark",
    solver: str = "prompting",
    setting: str = "full",
    tasks: str | list[str] | None = None,
    system: str | None = None,
    replay: str | None = None,
    judge: bool = False,
    output: str | None = None,
    epochs: int = 1,
    workers: int = 1,
    base_image: str | None = None,
    timeout: float | None = None,
    max_prompt_tokens: int | None = DEFAULT_PROMPT_BUDGET,
    memory_mb: int = Limits.memory_mb,
    cpus: float = Limits.cpus,
    pids: int = Limits.pids,
    workspace_mb: int = AgentLimits.workspace_mb,
    message_limit: int = 60,
) -> Task:
    """An LMR-style benchmark: one sample per implementation, scored by lmr-author.

    Args:
        benchmark: the benchmark folder (or one task folder).
        solver: ``prompting`` (standard prompting) or ``agent`` (in the task's image).
        setting: ``full``, ``paper-and-goal-file`` or ``paper-only`` (the paper's §5.2).
        tasks: only these task folders (comma-separated).
        system: the name runs are recorded under (default: the model's, or the replayed
            system's).
        replay: a predictions file: Inspect's mock model answers with its functions.
        judge: also ask the LLM judge of ``eval --judge`` (``OPENAI_*`` variables).
        output: the eval output folder the runs are written to.
        epochs: samples per implementation (recorded as ``NAME+s<k>``, for pass@k).
        workers: unit-test runs at once.
        base_image: ``--base-image`` of ``eval`` (the FROM of the task images).
        timeout: seconds per unit-test file (``eval --timeout``).
        max_prompt_tokens: the prompt's token budget (``generate --max-prompt-tokens``).
        memory_mb: the agent container's memory (as a test container's limit).
        cpus: the agent container's CPUs.
        pids: the agent container's process limit.
        workspace_mb: the agent's workspace (tmpfs) size.
        message_limit: the agent's message limit.
    """
    from lmr_author.domain.benchmark import load_benchmark

    if solver not in SOLVERS:
        raise UserError(f"unknown solver {solver!r}", hint="Use -T solver=prompting or agent.")
    try:
        chosen = Setting(setting)
    except ValueError:
        raise UserError(
            f"unknown setting {setting!r}",
            hint="Use " + ", ".join(s.value for s in Setting) + ".",
        ) from None
    if replay is not None and solver != "prompting":
        raise UserError("replay answers prompts: it works with -T solver=prompting only")
    folder = Path(benchmark).resolve()
    loaded = load_benchmark(folder, _names(tasks))
    if not loaded.tasks:
        raise UserError("no task of this benchmark can be loaded", file=folder)
    out = Path(output) if output is not None else default_output(folder)
    if replay is not None:
        from lmr_author.inspect_bridge.replay import replay_system

        system = replay_system(Path(replay), system)
    scorers: list[Scorer] = [
        lmr_verdict(
            benchmark=str(folder),
            output=str(out),
            system=system,
            epochs=epochs,
            workers=workers,
            base_image=base_image,
            timeout=timeout,
        )
    ]
    if judge:
        scorers.append(lmr_judge(output=str(out)))
    model: Any = None
    if solver == "prompting":
        dataset = prompting_samples(loaded, chosen, max_prompt_tokens)
        plan: Solver = standard_prompting(cache=False if replay is not None else None)
        if replay is not None and system is not None:
            from lmr_author.inspect_bridge.replay import replay_model

            model = replay_model(Path(replay), system, dataset)
    else:
        limits = {
            "base_image": base_image,
            "memory_mb": memory_mb,
            "cpus": cpus,
            "pids": pids,
            "workspace_mb": workspace_mb,
        }
        dataset = agent_samples(loaded, chosen, limits)
        plan = lmr_agent()
    return Task(
        dataset=dataset,
        solver=plan,
        scorer=scorers,
        model=model,
        epochs=epochs,
        message_limit=message_limit if solver == "agent" else None,
        metadata={"benchmark": str(folder), "output": str(out), "setting": str(chosen)},
    )
