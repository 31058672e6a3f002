"""`lmr-author judge`: ask an LLM judge about the runs of an eval output folder."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lmr_author.errors import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE

if TYPE_CHECKING:
    from lmr_author.judge.config import JudgeConfig
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
            "Exit code 1 when some requests never got an answer (run again to retry)."
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
        "--force", action="store_true", help="judge again runs that already have a judgment"
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
    option("concurrency", type=int, default=4, metavar="N", help="requests in flight (default: 4)")
    option(
        "timeout",
        type=float,
        default=120.0,
        metavar="S",
        help="request time-out in seconds (default: 120)",
    )
    option(
        "max-attempts",
        type=int,
        default=5,
        metavar="N",
        help="tries per request on 429, 5xx and time-outs (default: 5)",
    )
    option(
        "temperature",
        type=float,
        default=0.0,
        metavar="T",
        help="sampling temperature (default: 0; reasoning models such as o4-mini need 1)",
    )
    option("max-tokens", type=int, metavar="N", help="cap on answer tokens (default: none)")
    option("template", type=Path, metavar="FILE", help="own prompt template")
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


def judge_config(args: argparse.Namespace) -> JudgeConfig:
    """The judge configuration from `add_judge_options`' flags and the environment.

    Raises `JudgeNotConfigured` when no endpoint or key is given anywhere.
    """
    from lmr_author.judge.config import config_from_env

    return config_from_env(
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
        config = judge_config(args)
    except JudgeNotConfigured:
        print(f"lmr-author judge: not enabled. {ENABLE_HINT}", file=sys.stderr)
        return EXIT_USAGE
    summary = judge_runs(args.results_dir, config, force=args.force, show_progress=not args.json)
    if args.json:
        print(json.dumps(summary.to_json(), indent=2))
    else:
        print(format_summary(summary))
    for problem in summary.problems:
        print(f"lmr-author judge: warning: {problem}", file=sys.stderr)
    if summary.errors:
        print(
            f"lmr-author judge: {summary.errors} judgment(s) got no answer from the server; "
            "run the same command again to retry them.",
            file=sys.stderr,
        )
        return EXIT_FINDINGS
    return EXIT_OK


def format_summary(summary: JudgeSummary) -> str:
    """A plain-text table: one row per system, unit-test accuracy then CC / LC / LI."""
    header = f"{'system':<28} {'runs':>5} {'unit':>6} {'judged':>6} {'CC':>6} {'LC':>6} {'LI':>6}"
    lines = [header + f" {'unparsed':>8}"]
    for name, system in sorted(summary.systems.items()):
        lines.append(
            f"{name:<28} {system.runs:>5} {system.unit_test_accuracy:>5.1f}% {system.judged:>6}"
            f" {system.percent('CC'):>5.1f}% {system.percent('LC'):>5.1f}%"
            f" {system.percent('LI'):>5.1f}% {system.counts.get('unparsed', 0):>8}"
        )
    if not summary.systems:
        lines.append("(no runs found)")
    usage = summary.usage
    lines.append(
        f"{summary.asked} asked, {summary.cached} from cache, {summary.kept} kept, "
        f"{summary.unparsed} unparsed ({summary.errors} without an answer); "
        f"{summary.requests} requests ({summary.retries} retries), "
        f"{usage.total_tokens} tokens spent ({usage.prompt_tokens} prompt + "
        f"{usage.completion_tokens} completion), {summary.usage_total.total_tokens} behind "
        f"all judgments; model {summary.model} in {summary.duration_s:.1f}s"
    )
    return "\n".join(lines)
