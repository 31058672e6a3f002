"""`lmr-author judge`: ask an LLM judge about the runs of an eval output folder."""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lmr_author.commands._numbers import percent_value
from lmr_author.commands._types import non_negative_float, positive_float, positive_int
from lmr_author.util.errors import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE

if TYPE_CHECKING:
    from lmr_author.domain.scoring import SystemScore
    from lmr_author.judge.config import JudgeConfig
    from lmr_author.judge.plan import JudgePlan
    from lmr_author.judge.summary import JudgeSummary


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    parser = subparsers.add_parser(
        "judge",
        help="label eval runs CC / LC / LI with an LLM judge (OpenAI-compatible)",
        description=(
            "Ask an LLM judge to classify every run of an eval output folder as completely "
            "correct (CC), logically correct with implementation errors (LC) or logically "
            "incorrect (LI), and print the percentages per system beside unit-test "
            "accuracy. Judgments go to RESULTS_DIR/judgments/; answers are cached, so "
            "judging the same thing again makes no requests. The endpoint, key and model "
            "come from the flags or OPENAI_BASE_URL, OPENAI_API_KEY and OPENAI_MODEL. "
            "Only readable answers are cached; unparsed and unanswered runs are asked again "
            "on the next run. Exit code 1 when some runs got no answer or an unreadable one, "
            "or the server was down (the cause is printed first; run again to retry). "
            "--dry-run prints the requests, tokens and cost it would take, and one prompt."
        ),
    )
    parser.add_argument(
        "results_dir",
        metavar="RESULTS_DIR",
        type=Path,
        help="the folder 'lmr-author eval' wrote (results.json, runs/)",
    )
    add_judge_options(parser)
    parser.add_argument(
        "--force",
        action="store_true",
        help="judge again runs that already have a judgment, without the cache",
    )
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="print the number of requests, estimated tokens and cost, and one prompt; ask nothing",
    )
    parser.add_argument(
        "--price-in",
        type=non_negative_float,
        metavar="USD",
        help="price per 1M prompt tokens for the --dry-run estimate (default: known models)",
    )
    parser.add_argument(
        "--price-out",
        type=non_negative_float,
        metavar="USD",
        help="price per 1M answer tokens for the --dry-run estimate (default: known models)",
    )
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    parser.set_defaults(handler=_judge)


def add_judge_options(parser: Any, prefix: str = "") -> None:
    """The options that configure the judge; ``eval`` adds them with prefix ``judge-``.

    Their destinations are ``judge_<name>`` whatever the prefix, so `judge_config`
    reads them the same way for both commands.
    """

    def option(name: str, *, flag: str | None = None, **kwargs: Any) -> None:
        dest = "judge_" + name.replace("-", "_")
        parser.add_argument(flag or f"--{prefix}{name}", dest=dest, **kwargs)

    option("base-url", help="OpenAI-compatible endpoint (default: OPENAI_BASE_URL)")
    option("model", help="judge model (default: OPENAI_MODEL, else gpt-4o)")
    option(
        "api-key-env",
        default="OPENAI_API_KEY",
        metavar="NAME",
        help="environment variable holding the API key (default: %(default)s)",
    )
    option(
        "concurrency",
        type=positive_int,
        default=4,
        metavar="N",
        help="requests in flight (default: 4)",
    )
    option(
        "timeout",
        type=positive_float,
        default=120.0,
        metavar="S",
        help="request time-out in seconds (default: 120)",
    )
    option(
        "max-attempts",
        type=positive_int,
        default=5,
        metavar="N",
        help="tries per request on 429, 5xx and time-outs (default: 5)",
    )
    option(
        "temperature",
        type=non_negative_float,
        default=0.0,
        metavar="T",
        help="sampling temperature (default: 0; reasoning models such as o4-mini need 1)",
    )
    option(
        "max-tokens", type=positive_int, metavar="N", help="cap on answer tokens (default: none)"
    )
    option("template", type=Path, metavar="FILE", help="own Jinja2 prompt template")
    option(
        "scope",
        flag="--judge-scope",  # the name, the same for both commands
        choices=("function", "file"),
        default="function",
        help="show the judge the goal function with its class context (default) or whole files",
    )
    option(
        "no-structured",
        action="store_true",
        help="never ask for structured (json_schema) output",
    )
    option(
        "no-cache", action="store_true", help="ask the server even when the cache has the answer"
    )


def judge_config(args: argparse.Namespace, *, offline: bool = False) -> JudgeConfig:
    """The judge configuration from `add_judge_options`' flags and the environment.

    Raises `JudgeNotConfigured` when no endpoint or key is given anywhere, unless
    ``offline`` (a dry run, which needs no key).
    """
    import os

    from lmr_author.judge.config import config_from_env
    from lmr_author.llm.endpoint import NO_KEY

    return config_from_env(
        api_key=(os.environ.get(args.judge_api_key_env) or NO_KEY) if offline else None,
        base_url=args.judge_base_url,
        api_key_env=args.judge_api_key_env,
        model=args.judge_model,
        concurrency=args.judge_concurrency,
        timeout_s=args.judge_timeout,
        max_attempts=args.judge_max_attempts,
        temperature=args.judge_temperature,
        max_tokens=args.judge_max_tokens,
        template=args.judge_template,
        scope=args.judge_scope,
        structured=not args.judge_no_structured,
        use_cache=not args.judge_no_cache,
    )


def judge_runs(
    results_dir: Path, config: JudgeConfig, *, force: bool = False, show_progress: bool = True
) -> JudgeSummary:
    """`run_judging` with a progress bar on stderr when it is a terminal."""
    from lmr_author.commands._render_progress import progress_bar
    from lmr_author.judge.runner import run_judging

    with progress_bar("judging", enabled=show_progress) as on_progress:
        return run_judging(results_dir, config, force=force, on_progress=on_progress)


def _judge(args: argparse.Namespace) -> int:
    from lmr_author.judge.config import ENABLE_HINT, JudgeNotConfigured

    try:
        config = judge_config(args, offline=args.dry_run)
    except JudgeNotConfigured:
        print(f"lmr-author judge: not enabled. {ENABLE_HINT}", file=sys.stderr)
        return EXIT_USAGE
    if args.dry_run:
        from lmr_author.judge.plan import plan_judging

        plan = plan_judging(
            args.results_dir,
            config,
            force=args.force,
            price_in=args.price_in,
            price_out=args.price_out,
        )
        print(json.dumps(plan_to_json(plan), indent=2) if args.json else format_plan(plan))
        for problem in plan.problems:
            print(f"lmr-author judge: warning: {problem}", file=sys.stderr)
        return EXIT_OK
    summary = judge_runs(args.results_dir, config, force=args.force, show_progress=not args.json)
    # What went wrong comes first (stderr, before the table), not after the table.
    headline = failure_lines(summary)
    for line in headline:
        print(f"lmr-author judge: {line}", file=sys.stderr)
    if args.json:
        print(json.dumps(summary.to_json(), indent=2))
    else:
        print(format_summary(summary))
    for problem in summary.problems:
        print(f"lmr-author judge: warning: {problem}", file=sys.stderr)
    return EXIT_FINDINGS if headline else EXIT_OK


def failure_lines(summary: JudgeSummary) -> list[str]:
    """One line per kind of trouble: server down, no answers (with causes), unread answers."""
    lines: list[str] = []
    if summary.stopped:
        lines.append(
            f"stopped early, the server looks down: {summary.stopped}; {summary.not_asked} "
            "run(s) were not asked. Run the same command again when it is up."
        )
    if summary.errors:
        causes = sorted(summary.failures.items(), key=lambda item: (-item[1], item[0]))
        shown = "; ".join(f"{cause} (x{count})" for cause, count in causes[:6])
        more = f"; and {len(causes) - 6} other cause(s)" if len(causes) > 6 else ""
        where = f" at {summary.failure_url}" if summary.failure_url else ""
        lines.append(
            f"{summary.errors} run(s) got no answer from the server{where}: {shown}{more}. "
            "Run the same command again to retry them."
        )
    if summary.unparsed:
        lines.append(
            f"{summary.unparsed} answer(s) could not be read (no category 1, 2 or 3); they "
            "are not cached and are asked again on the next run."
        )
    return lines


def plan_to_json(plan: JudgePlan) -> dict[str, Any]:
    return {
        "model": plan.model,
        "url": plan.url,
        "runs": plan.runs,
        "kept": plan.kept,
        "cached": plan.cached,
        "requests": plan.to_ask,
        "estimated_usage": plan.usage.to_json(),
        "price_per_1m": (
            {"input": plan.price.input_per_m, "output": plan.price.output_per_m}
            if plan.price
            else None
        ),
        "estimated_cost_usd": plan.cost,
        "problems": list(plan.problems),
        "sample_item": plan.sample_item,
        "sample_messages": plan.sample_messages,
    }


def format_plan(plan: JudgePlan) -> str:
    """The dry run: requests, tokens, cost, then the full prompt of one run to ask."""
    usage = plan.usage
    lines = [
        f"dry run: no request was made. {plan.runs} run(s): {plan.kept} judged already, "
        f"{plan.cached} answered by the cache, {plan.to_ask} to ask.",
        f"requests: at least {plan.to_ask} to {plan.url} (model {plan.model}; an unreadable "
        "answer is asked once more).",
        f"estimated tokens: {usage.prompt_tokens:,} prompt + {usage.completion_tokens:,} "
        f"answer = {usage.total_tokens:,} (about 4 characters per token).",
    ]
    cost = plan.cost
    if plan.price is None or cost is None:
        lines.append(
            f"estimated cost: unknown, no price for model {plan.model}; pass --price-in "
            "and --price-out (USD per 1M tokens)."
        )
    else:
        lines.append(
            f"estimated cost: ${cost:,.2f} at ${plan.price.input_per_m:g} / "
            f"${plan.price.output_per_m:g} per 1M prompt / answer tokens."
        )
    if plan.sample_messages:
        lines.append(f"the prompt for {plan.sample_item}:")
        for message in plan.sample_messages:
            lines.append(f"----- {message.get('role', '')} -----")
            lines.append(message.get("content", ""))
        lines.append("----- end of prompt -----")
    return "\n".join(lines)


#: The number columns of the per-system table: (header, width); the system gets the rest.
_COLUMNS = (
    ("runs", 5),
    ("unit", 6),
    ("judged", 7),
    ("CC", 6),
    ("LC", 6),
    ("LI", 6),
    ("unparsed", 8),
    ("no answer", 9),
)


def _percent(system: SystemScore, label: str) -> str:
    """A label's share of the judged runs; a dash when none was judged (not 0.0 %)."""
    from lmr_author.judge.summary import label_percent

    return f"{percent_value(label_percent(system, label))}%" if system.judge.total else "–"


def format_summary(summary: JudgeSummary, width: int = 80) -> str:
    """A plain-text table no wider than ``width``: one row per system, unit-test accuracy
    then CC / LC / LI; thin rows (`lmr_author.domain.thin_rows`) are named first and marked."""
    from lmr_author.domain.thin_rows import describe, footnote, mark
    from lmr_author.judge.summary import unit_test_accuracy

    thin = summary.thin()
    lines = []
    if thin:
        shown = ", ".join(
            describe(name, summary.systems[name].judge.total, median)
            for name, median in sorted(thin.items())
        )
        lines += textwrap.wrap(f"thin rows: judge: {shown}", width)
    numbers = sum(size + 1 for _, size in _COLUMNS)
    name_width = max(width - numbers, 6)
    lines.append(f"{'system':<{name_width}}" + "".join(f" {h:>{n}}" for h, n in _COLUMNS))
    for name, system in sorted(summary.systems.items()):
        cells = (
            str(system.runs),
            f"{percent_value(unit_test_accuracy(system))}%" if system.unit_tests.counted else "–",
            mark(system.judge.total, name in thin),
            *(_percent(system, label) for label in ("CC", "LC", "LI")),
            str(system.judge.unparsed),
            str(system.unanswered),
        )
        row = "".join(f" {cell:>{n}}" for cell, (_, n) in zip(cells, _COLUMNS, strict=True))
        if len(name) > name_width:  # a long name on its own line, never cut
            lines += textwrap.wrap(name, width, break_on_hyphens=False)
            lines.append(" " * name_width + row)
        else:
            lines.append(f"{name:<{name_width}}{row}")
    if not summary.systems:
        lines.append("(no runs found)")
    if thin:
        lines += textwrap.wrap(footnote(sorted(thin)), width)
    usage = summary.usage
    totals = (
        f"{summary.asked} asked, {summary.cached} from cache, {summary.kept} kept, "
        f"{summary.unparsed} unparsed, {summary.errors + summary.not_asked} without an answer; "
        f"{summary.requests} requests ({summary.retries} retries), "
        f"{usage.total_tokens} tokens spent ({usage.prompt_tokens} prompt + "
        f"{usage.completion_tokens} completion), {summary.usage_total.total_tokens} behind "
        f"all judgments; model {summary.model} in {summary.duration_s:.1f}s"
    )
    lines += textwrap.wrap(totals, width, break_on_hyphens=False)
    return "\n".join(lines)
