"""`lmr-author judge`: ask an LLM judge about the runs of an eval output folder."""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lmr_author.commands._help import add_command
from lmr_author.commands._judge_options import add_judge_options, judge_config
from lmr_author.commands._numbers import percent_value
from lmr_author.commands._types import non_negative_float
from lmr_author.util.errors import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE

if TYPE_CHECKING:
    from lmr_author.domain.scoring import SystemScore
    from lmr_author.judge.config import JudgeConfig
    from lmr_author.judge.plan import JudgePlan
    from lmr_author.judge.summary import JudgeSummary


DESCRIPTION = """\
Ask an LLM judge to classify every run of an eval output folder as completely
correct (CC), logically correct with implementation errors (LC) or logically
incorrect (LI), and print the percentages per system beside unit-test accuracy.

Judgments go to RESULTS_DIR/judgments/. Answers are cached by the exact request,
so judging the same thing again makes no request; only readable answers are
cached, and runs left unparsed or unanswered are asked again on the next run.
The endpoint, key and model come from the options or OPENAI_BASE_URL,
OPENAI_API_KEY and OPENAI_MODEL ('lmr-author eval --judge' takes the same
options as --judge-base-url, --judge-model, ...).

--dry-run prints the requests, tokens and cost it would take, and one prompt.
"""

EPILOG = """\
exit codes: 0 every run judged, 1 some runs got no answer or an unreadable one,
or the server was down (the cause is printed first; run again to retry), 2 usage
or input error (also: no endpoint configured).
"""


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    parser = add_command(
        subparsers,
        "judge",
        summary="label eval runs CC / LC / LI with an LLM judge (OpenAI-compatible)",
        description=DESCRIPTION,
        epilog=EPILOG,
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
