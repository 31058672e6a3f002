"""What a judging run would do, without asking anything (``judge --dry-run``).

The same decisions as `run_judging` (judgments kept on disk, answers in the cache) give
the number of runs to ask; the prompts give an estimate of the tokens, and the model's
price (or ``--price-in``/``--price-out``) an estimate of the cost. One full prompt is
kept so the user can read what the judge would see.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from lmr_author.judge.config import JudgeConfig
from lmr_author.judge.inputs import find_runs
from lmr_author.judge.prompt import load_template
from lmr_author.judge.runner import Batch
from lmr_author.llm.tokens import estimate_message_tokens
from lmr_author.llm.usage import Price, Usage, estimate_cost, price_for
from lmr_author.util.errors import UserError

#: Answer tokens assumed per request when no --max-tokens caps them: a category and a
#: few rationale points, as the paper's judge answers (its examples are 150-300 tokens).
DEFAULT_ANSWER_TOKENS = 400


@dataclass
class JudgePlan:
    """How many runs would be asked, about how many tokens that is, and what it costs."""

    model: str
    url: str
    runs: int = 0
    kept: int = 0
    cached: int = 0
    to_ask: int = 0
    usage: Usage = field(default_factory=Usage)  # estimated, for the runs to ask
    price: Price | None = None
    problems: list[str] = field(default_factory=list)
    #: One run to ask (system/task/index) and its full prompt messages.
    sample_item: str = ""
    sample_messages: list[dict[str, str]] = field(default_factory=list)

    @property
    def cost(self) -> float | None:
        return estimate_cost(self.usage, self.price)


def plan_judging(
    output_dir: Path,
    config: JudgeConfig,
    *,
    force: bool = False,
    price_in: float | None = None,
    price_out: float | None = None,
) -> JudgePlan:
    """Count the requests `run_judging` would make, estimate tokens and cost; ask nothing."""
    output_dir = Path(output_dir)
    batch = Batch(output_dir, config, force, load_template(config.template))
    try:
        runs, problems = find_runs(output_dir)
        plan = JudgePlan(model=config.model, url=batch.client.url, problems=list(problems))
        plan.price = price_for(config.model, price_in=price_in, price_out=price_out)
        answer_tokens = config.max_tokens or DEFAULT_ANSWER_TOKENS
        prompt_tokens = 0
        for run in runs:
            plan.runs += 1
            where = f"{run.system}/{run.task}/{run.implementation}"
            try:
                prompt = batch.prompt(run)
            except UserError as error:  # reported and skipped, as run_judging does
                plan.problems.append(f"{where}: {error}; not judged")
                continue
            key = batch.key(prompt)
            if batch.up_to_date(run, key):
                plan.kept += 1
            elif batch.cached(key) is not None:
                plan.cached += 1
            else:
                plan.to_ask += 1
                prompt_tokens += estimate_message_tokens(prompt.messages)
                if not plan.sample_messages:
                    plan.sample_item, plan.sample_messages = where, prompt.messages
        completion_tokens = plan.to_ask * answer_tokens
        plan.usage = Usage(prompt_tokens, completion_tokens, prompt_tokens + completion_tokens)
        return plan
    finally:
        batch.client.close()
