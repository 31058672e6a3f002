"""`lmr-author generate`: the paper's standard-prompting baseline -> predictions JSONL."""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lmr_author.commands._endpoint_options import add_endpoint_options, endpoint_settings
from lmr_author.commands._runtime import add_runtime_option
from lmr_author.commands._types import non_negative_float, positive_int
from lmr_author.cst.goal_lines import add_line_option
from lmr_author.util.errors import EXIT_FINDINGS, EXIT_OK

if TYPE_CHECKING:
    from lmr_author.domain.benchmark import Benchmark
    from lmr_author.generation.runner import GenerateSummary, Plan

SETTINGS = ("full", "paper-only", "paper-and-goal-file")
#: The temperature of --samples N > 1 when none is given: samples must differ.
SAMPLING_TEMPERATURE = 0.8

DESCRIPTION = """\
Ask a model for every goal function of the benchmark with the paper's standard
prompting (§4.1, appendix D): the masked goal file, the paper as PyMuPDF JSON, the
instruction and the retrieval snippets, asking for the goal function only. Writes a
predictions JSONL that 'lmr-author eval' scores as it is (one line per implementation
and sample, with the token usage, the prompt size and any truncation).

Settings (the paper's ablations, docs/generation.md): full, paper-and-goal-file (no
retrieval snippets), paper-only (no goal file either). --samples N asks N times per
implementation (temperature 0.8 unless --temperature is given); sample k is system
NAME+s<k>, and 'lmr-author report' gives pass@1 and pass@k.

Answers are cached by the exact request (endpoint, model, parameters, sample, prompt),
and the predictions file is rewritten atomically after every answer: a rerun asks
nothing, and Ctrl-C then running again resumes. --dry-run prints the number of
requests, the estimated prompt size of each, the total, and one full prompt, and asks
nothing. The endpoint, key and model come from the flags or OPENAI_BASE_URL,
OPENAI_API_KEY and OPENAI_MODEL.
"""

EPILOG = """\
exit codes: 0 every request answered with a function eval can splice, 1 some answers
cannot be spliced (eval scores them as errors), some requests never got an answer (run
again to retry), some prompts do not fit the budget even after every cut (they are
listed and not asked) or some tasks cannot be loaded (listed first on stderr with
their reasons, then skipped; --json lists them under skipped_tasks), 2 usage or
input error, 130 interrupted (answers so far are kept).
"""


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    parser = subparsers.add_parser(
        "generate",
        help="standard-prompting baseline: ask a model, write predictions JSONL",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("benchmark", type=Path, help="a benchmark folder or one task folder")
    parser.add_argument(
        "--out",
        "-o",
        type=Path,
        default=Path("predictions.jsonl"),
        metavar="FILE",
        help="predictions file, resumed if it exists (default: %(default)s)",
    )
    parser.add_argument("--model", help="model name (default: OPENAI_MODEL)")
    parser.add_argument("--system", metavar="NAME", help="system name (default: the model's)")
    parser.add_argument("--setting", choices=SETTINGS, default="full", help="(default: full)")
    parser.add_argument(
        "--samples", type=positive_int, default=1, metavar="N", help="samples per item"
    )
    parser.add_argument(
        "--temperature",
        type=non_negative_float,
        metavar="T",
        help=f"sampling temperature (default: 0, or {SAMPLING_TEMPERATURE} with --samples > 1)",
    )
    parser.add_argument(
        "--max-prompt-tokens",
        type=positive_int,
        default=120_000,
        metavar="N",
        help="prompt budget; longer prompts are cut in the documented order (default: %(default)s)",
    )
    add_endpoint_options(parser)
    parser.add_argument(
        "--price-in", type=non_negative_float, metavar="USD", help="$ per 1M prompt tokens"
    )
    parser.add_argument(
        "--price-out", type=non_negative_float, metavar="USD", help="$ per 1M answer tokens"
    )
    parser.add_argument(
        "--task", action="append", default=[], metavar="NAME", help="only this task (repeatable)"
    )
    add_line_option(parser)
    parser.add_argument("--no-cache", action="store_true", help="do not read the answer cache")
    parser.add_argument("--force", action="store_true", help="ask again even answered requests")
    parser.add_argument("--dry-run", action="store_true", help="show the requests; ask nothing")
    parser.add_argument("--json", action="store_true", help="print the summary (or plan) as JSON")
    add_runtime_option(parser)
    parser.set_defaults(handler=_generate)


def _generate(args: argparse.Namespace) -> int:
    from lmr_author.commands._benchmark import load_for_command
    from lmr_author.generation.prompt import Setting
    from lmr_author.generation.runner import config_from_env, plan_generation, run_generation

    temperature = args.temperature
    if temperature is None:
        temperature = SAMPLING_TEMPERATURE if args.samples > 1 else 0.0
    config = config_from_env(
        model=args.model,
        **endpoint_settings(args),
        require_endpoint=not args.dry_run,
        system=args.system,
        setting=Setting(args.setting),
        samples=args.samples,
        temperature=temperature,
        max_prompt_tokens=args.max_prompt_tokens,
        use_cache=not args.no_cache,
        price_in=args.price_in,
        price_out=args.price_out,
    )
    benchmark = load_for_command(args.benchmark, args.task)
    from lmr_author.cst.goal_lines import resolve_goal_lines

    lines = resolve_goal_lines(args.goal_lines, benchmark.tasks)  # checked before asking
    plan = plan_generation(benchmark.tasks, config, args.out, force=args.force)
    plan.goal_lines = lines
    if args.dry_run:
        _print_plan(plan, benchmark, as_json=args.json)
        return EXIT_FINDINGS if benchmark.broken or plan.unready else EXIT_OK
    from lmr_author.commands._render_progress import progress_bar

    with progress_bar("generating", enabled=not args.json) as on_progress:
        summary = run_generation(plan, args.out, on_progress=on_progress)
    _print_summary(summary, benchmark, args.out, as_json=args.json)
    trouble = (
        summary.failed
        or summary.stopped
        or summary.too_long
        or summary.unready
        or summary.unspliceable
        or benchmark.broken
    )
    return EXIT_FINDINGS if trouble else EXIT_OK


def _print_plan(plan: Plan, benchmark: Benchmark, *, as_json: bool) -> None:
    from lmr_author.commands._benchmark import with_skipped

    rows: list[dict[str, Any]] = [
        {
            "item": r.item,
            "sample": r.sample,
            "system": r.system,
            "state": r.state,
            "prompt_tokens_estimate": r.prompt.estimated_tokens,
            "truncations": [t.describe() for t in r.prompt.truncations],
        }
        for r in plan.requests
    ]
    example = plan.to_ask[0] if plan.to_ask else (plan.requests[0] if plan.requests else None)
    cost = plan.estimated_cost()
    if as_json:
        data = {
            "requests": len(plan.to_ask),
            "kept": plan.count("kept"),
            "cached": plan.count("cached"),
            "prompt_tokens_estimate": plan.prompt_tokens_to_ask,
            "too_long": list(plan.too_long),
            "unready": list(plan.unready),
            "estimated_cost_usd": cost,
            "items": rows,
            "example_prompt": example.prompt.text if example else None,
        }
        print(json.dumps(with_skipped(data, benchmark), indent=2, ensure_ascii=False))
        return
    for row in rows:
        cuts = _cuts(row["truncations"])
        print(
            f"{row['item']:<28} sample {row['sample']:<3} {row['state']:<6} "
            f"~{row['prompt_tokens_estimate']:>7} tokens" + (f"  truncated: {cuts}" if cuts else "")
        )
    for line in plan.too_long:
        print(f"not asked, over the budget: {line}")
    for line in plan.unready:
        print(f"not asked, inputs missing: {line}")
    if example is not None:
        print(f"\n--- the full prompt of {example.item} (sample {example.sample}) ---")
        print(example.prompt.text)
        print("--- end of prompt ---\n")
    money = f", about ${cost:.2f}" if cost is not None else " (price unknown: tokens only)"
    print(
        f"dry run: {len(plan.to_ask)} requests to make ({plan.count('cached')} cached, "
        f"{plan.count('kept')} already in the predictions file), "
        f"~{plan.prompt_tokens_to_ask} prompt tokens in total{money}; nothing was asked"
    )


def _cuts(cuts: list[str]) -> str:
    """A prompt's truncations in one short phrase (a prompt can need dozens of cuts)."""
    if len(cuts) <= 2:
        return "; ".join(cuts)
    removed = sum(int(n) for cut in cuts for n in re.findall(r"\(-(\d+) tokens\)", cut))
    return f"{len(cuts)} cuts, -{removed} tokens ({cuts[0]} ... {cuts[-1]}; --json lists each)"


def _print_summary(
    summary: GenerateSummary, benchmark: Benchmark, out: Path, *, as_json: bool
) -> None:
    from lmr_author.commands._benchmark import with_skipped

    if as_json:
        print(json.dumps(with_skipped(summary.to_json(), benchmark), indent=2))
        return
    # How many answers eval cannot use comes first; the item lines (in task order) follow.
    if summary.unspliceable:
        count = len(summary.unspliceable)
        print(
            f"{count} of {summary.asked + summary.cached + summary.kept} answers cannot be "
            f"spliced into the masked goal file (eval will score {_them(count)} as errors)"
        )
    for item, cuts in summary.truncated.items():
        print(f"{item}: prompt truncated to fit the budget: " + _cuts(list(cuts)))
    for line in summary.too_long:
        print(f"not asked, over the budget: {line}", file=sys.stderr)
    for line in summary.unready:
        print(f"not asked, inputs missing: {line}", file=sys.stderr)
    for line in summary.unspliceable:
        print(f"cannot be spliced: {line}")
    for line in summary.failed:
        print(f"no answer: {line}", file=sys.stderr)
    if summary.stopped:
        print(f"stopped: {summary.stopped}", file=sys.stderr)

    def money(value: float | None) -> str:
        return f"${value:.4f}" if value is not None else "price unknown"

    print(
        f"wrote {summary.records} predictions to {out}: {summary.asked} asked, "
        f"{summary.cached} from the cache, {summary.kept} kept, {len(summary.failed)} "
        f"without an answer; {summary.requests} HTTP requests ({summary.retries} retries)"
    )
    print(
        f"tokens this run: {summary.usage.prompt_tokens} prompt + "
        f"{summary.usage.completion_tokens} completion ({money(summary.cost)}); all "
        f"predictions: {summary.usage_total.total_tokens} tokens ({money(summary.cost_total)})"
    )


def _them(count: int) -> str:
    return "it" if count == 1 else "them"
