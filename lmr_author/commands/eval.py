"""`lmr-author eval`: score submissions with the benchmark's unit tests in Docker."""

from __future__ import annotations

import argparse
import json
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lmr_author.commands._executor import add_executor_options, slurm_backend
from lmr_author.commands._help import add_command, group_text
from lmr_author.commands._judge_options import add_judge_options
from lmr_author.commands._provisions import add_provision_options, hub_of
from lmr_author.commands._render_results import missing_lines
from lmr_author.commands._render_results import print_summary as _print_summary
from lmr_author.commands._runtime import add_runtime_option
from lmr_author.commands._types import output_folder, positive_float
from lmr_author.commands.review import add_review_options, review_folder
from lmr_author.cst.goal_lines import add_line_option
from lmr_author.domain.benchmark import Benchmark, BrokenTask, skipped_lines
from lmr_author.util.errors import EXIT_FINDINGS, EXIT_OK, UserError

if TYPE_CHECKING:
    from rich.console import Console

    from lmr_author.eval_loop import Results, Submission
    from lmr_author.judge.summary import JudgeSummary

#: Exit code of an evaluation stopped by Ctrl-C (128 + SIGINT), as shells report it.
EXIT_INTERRUPTED = 130

DESCRIPTION = """\
Run every submission's candidate for every implementation of the benchmark
through the task's unit tests in Docker, and report unit-test accuracy per
system (the fraction of implementations all of whose tests pass), with verdict
counts and categories.

A submission is a folder mirroring the benchmark with the goal files replaced
(system name: --system, else the one 'lmr-author collect' recorded, else the
folder's name), or a JSONL file of predictions (one {"task", "implementation",
"system", "source"} per line; schemas/predictions.schema.json) spliced into the
masked goal files. --submission may repeat; a --system right after a
--submission names that one.

Each finished run is written at once under OUTPUT/runs/; a rerun skips runs
whose task, candidate, image and settings are unchanged, so Ctrl-C and running
again resumes. Failures of the infrastructure (engine unreachable, image build
failed) are listed apart and never counted against a candidate.
"""

EPILOG = """\
exit codes: 0 evaluated, 1 some runs failed for reasons of infrastructure or
some tasks cannot be loaded (listed first, then skipped), 2 usage or input
error, 130 interrupted (finished runs are kept; run again to resume).
"""


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    parser = add_command(
        subparsers,
        "eval",
        summary="score submissions with the unit tests in Docker (resumable)",
        description=DESCRIPTION,
        epilog=EPILOG,
    )
    parser.add_argument(
        "benchmark",
        type=Path,
        help="a benchmark folder or one task folder (RESULTS, an eval output folder, "
        "with --human-review)",
    )
    parser.add_argument(
        "--submission",
        "-s",
        dest="submissions",
        action=_SubmissionAction,
        metavar="PATH",
        help="a mirrored submission folder or a predictions .jsonl (repeatable)",
    )
    parser.add_argument(
        "--system",
        dest="submissions",
        action=_SystemAction,
        metavar="NAME",
        help="system name of the --submission just before it "
        "(default: the system named in the folder's lmr-collect.json, else the folder's "
        "name; for JSONL, lines without a 'system')",
    )
    parser.add_argument(
        "--output",
        "-o",
        type=output_folder,
        default=Path("lmr-results"),
        metavar="DIR",
        help="output folder (default: %(default)s)",
    )
    parser.add_argument(
        "--workers",
        "-j",
        type=int,
        default=2,
        metavar="N",
        help="runs at once (default: 2); with --executor slurm, images built at once "
        "(every run goes to Slurm together: --max-in-flight throttles them)",
    )
    parser.add_argument(
        "--task",
        action="append",
        default=[],
        metavar="NAME",
        help="only this task folder name (repeatable)",
    )
    add_line_option(parser)
    parser.add_argument("--force", action="store_true", help="run again even unchanged runs")
    parser.add_argument(
        "--base-image", metavar="IMG", help="build task images FROM this image instead"
    )
    parser.add_argument(
        "--timeout", type=positive_float, metavar="S", help="time limit per test file in seconds"
    )
    add_provision_options(parser)
    parser.add_argument("--json", action="store_true", help="print results.json to stdout")
    parser.add_argument(
        "--verbose",
        "-v",
        action="store_true",
        help="print where each run's time went (container, harness, test) as it ends",
    )
    judge = parser.add_argument_group(
        "LLM judge",
        group_text(
            "--judge: after the unit tests, label every run CC / LC / LI with an LLM judge "
            "(as 'lmr-author judge' does). Without an endpoint (OPENAI_BASE_URL / "
            "OPENAI_API_KEY or --judge-base-url) the judge is skipped with a notice."
        ),
    )
    judge.add_argument("--judge", action="store_true", help="also run the LLM judge")
    add_judge_options(judge, prefix="judge-")
    review = parser.add_argument_group(
        "human review",
        group_text(
            "eval RESULTS --human-review is 'lmr-author review RESULTS' under its older "
            "name: the labeling app on the output folder of an earlier evaluation, with "
            "the same options (--annotator NAME, ...: see 'lmr-author review --help')."
        ),
    )
    review.add_argument(
        "--human-review",
        action="store_true",
        help="open the labeling app on RESULTS, as 'lmr-author review' does",
    )
    add_review_options(review, shown=False)
    add_runtime_option(parser)
    add_executor_options(parser)
    parser.set_defaults(handler=_handle)


class _SubmissionAction(argparse.Action):
    """``--submission PATH``: append [PATH, None] (the system name comes with --system)."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        items = list(getattr(namespace, self.dest, None) or [])
        items.append([Path(values), None])
        setattr(namespace, self.dest, items)


class _SystemAction(argparse.Action):
    """``--system NAME``: name the submission given just before it."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        items = list(getattr(namespace, self.dest, None) or [])
        if not items:
            parser.error("--system names the --submission before it; give --submission first")
        if items[-1][1] is not None:
            parser.error(f"--system given twice for --submission {items[-1][0]}")
        items[-1] = [items[-1][0], str(values)]
        setattr(namespace, self.dest, items)


def _handle(args: argparse.Namespace) -> int:
    from rich.console import Console

    from lmr_author.eval_loop import Submission

    if args.human_review:
        return _human_review(args)
    if not args.submissions:
        raise UserError(
            "nothing to evaluate: give --submission PATH (a mirrored folder or a .jsonl)",
            hint="Or, to label earlier results: lmr-author review RESULTS --annotator NAME.",
        )
    lines = tuple(args.goal_lines)
    submissions = [Submission(path, system, lines) for path, system in args.submissions]
    if args.workers < 1:
        raise UserError(f"--workers must be at least 1, got {args.workers}")
    if args.timeout is not None and args.timeout <= 0:
        raise UserError(f"--timeout must be positive, got {args.timeout}")
    errors = Console(stderr=True)
    broken: list[BrokenTask] = []
    results = _run_with_progress(args, submissions, errors, broken)
    if not args.json:
        _print_summary(results, args.output)
    judge: JudgeOutcome | None = None
    if args.judge and not results.interrupted:
        judge = _run_judge(args, errors)
    judge_failed = judge is not None and judge.failed
    if args.json:
        for line in missing_lines(results):  # stdout is the JSON: say it on stderr
            errors.print(line, markup=False, soft_wrap=True)
        data = results.to_json()
        if broken:
            data["skipped_tasks"] = [item.to_json() for item in broken]
        if judge is not None:
            # The judge's CC / LC / LI next to the unit tests, as the text output has it.
            data["judge"] = judge.to_json()
        print(json.dumps(data, indent=2, ensure_ascii=False))
    if results.interrupted:
        errors.print(
            "[yellow]interrupted[/]: finished runs are kept; run the same command again "
            "to complete the rest."
        )
        return EXIT_INTERRUPTED
    if results.infra_errors or judge_failed or broken:
        return EXIT_FINDINGS
    return EXIT_OK


@dataclass(frozen=True)
class JudgeOutcome:
    """What ``eval --judge`` did: its summary, or why it was skipped."""

    summary: JudgeSummary | None
    skipped: str = ""
    failed: bool = False

    def to_json(self) -> dict[str, Any]:
        if self.summary is None:
            return {"skipped": self.skipped}
        return self.summary.to_json()


def _run_judge(args: argparse.Namespace, console: Console) -> JudgeOutcome:
    """Judge the runs just written (``failed`` when some judgments got no answer)."""
    from lmr_author.commands._judge_options import judge_config
    from lmr_author.commands.judge import failure_lines, format_summary, judge_runs
    from lmr_author.judge.config import ENABLE_HINT, JudgeNotConfigured

    try:
        config = judge_config(args)
    except JudgeNotConfigured:
        notice = f"judge skipped: no LLM endpoint is configured. {ENABLE_HINT}"
        console.print(notice, soft_wrap=True)
        return JudgeOutcome(None, skipped=notice)
    summary = judge_runs(args.output, config, show_progress=not args.json)
    trouble = failure_lines(summary)  # the causes first, then the table
    for line in trouble:
        console.print(f"judge: {line}", soft_wrap=True, markup=False)
    if not args.json:
        print(format_summary(summary))
    for problem in summary.problems:
        console.print(f"judge warning: {problem}", markup=False)
    return JudgeOutcome(summary, failed=bool(trouble))


def _human_review(args: argparse.Namespace) -> int:
    if args.submissions:
        raise UserError(
            "--human-review labels the results of an earlier evaluation and takes no --submission",
            hint="Run 'lmr-author eval BENCHMARK --submission S' first, then "
            "'lmr-author review OUTPUT --annotator NAME'.",
        )
    return review_folder(args.benchmark, args)


def _run_with_progress(
    args: argparse.Namespace,
    submissions: list[Submission],
    console: Console,
    broken: list[BrokenTask],
) -> Results:
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    from lmr_author.eval_loop import RunRecord, run_evaluation
    from lmr_author.sandbox.run_phases import Phase, format_phases, listen

    progress = Progress(
        TextColumn("[bold]eval[/]"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[note]}"),
        TimeElapsedColumn(),
        console=console,
        transient=False,
    )
    bar = progress.add_task("runs", total=None, note="")
    counts = {"ran": 0, "skipped": 0}

    def on_start(total: int) -> None:
        # started only now, so that input errors found while planning print alone
        progress.update(bar, total=total)
        progress.start()

    def on_run(record: RunRecord, skipped: bool) -> None:
        counts["skipped" if skipped else "ran"] += 1
        note = f"{record.system} {record.task}#{record.implementation}: {record.verdict}"
        if counts["skipped"]:
            note += f"  ({counts['skipped']} unchanged, skipped)"
        progress.update(bar, advance=1, note=note)

    def on_interrupt() -> None:
        if backend is not None:
            progress.console.print(
                "[yellow]interrupt[/]: cancelling this evaluation's Slurm jobs (scancel); "
                "finished runs are kept"
            )
            return
        progress.console.print(
            "[yellow]interrupt[/]: no new runs; waiting for the running ones to finish "
            "and remove their containers (Ctrl-C again to kill them now)..."
        )

    def on_abort() -> None:
        progress.console.print(
            "[yellow]interrupt[/]: killing the running containers; their runs will run "
            "again when you resume"
        )

    def on_loaded(benchmark: Benchmark) -> None:
        broken.extend(benchmark.broken)
        for line in skipped_lines(benchmark.broken, benchmark.notes):
            console.print(line, markup=False, soft_wrap=True)

    def on_orphans(removed: list[str]) -> None:
        if removed:
            progress.console.print(
                f"removed {len(removed)} container(s) left by evaluations that died"
            )

    backend = slurm_backend(
        args,
        lambda p: progress.update(
            bar, note=f"slurm: {p.queued} queued, {p.running} running, {p.submitted_jobs} arrays"
        ),
        Path(args.output) / "slurm",
        on_note=lambda line: progress.console.print(line, markup=False, highlight=False),
    )

    def on_phases(run: str, test_file: str, phases: tuple[Phase, ...]) -> None:
        lines = [f"{run} {test_file}:", *format_phases(phases)]
        progress.console.print("\n".join(lines), markup=False, highlight=False)

    timed = listen(on_phases) if args.verbose else nullcontext()
    try:
        with timed:
            return run_evaluation(
                args.benchmark,
                submissions,
                args.output,
                workers=args.workers,
                force=args.force,
                tasks=args.task or None,
                base_image=args.base_image,
                timeout_s=args.timeout,
                gpus=args.gpus,
                hf_cache=hub_of(args),
                on_start=on_start,
                on_run=on_run,
                on_interrupt=on_interrupt,
                on_abort=on_abort,
                on_orphans=on_orphans,
                on_loaded=on_loaded,
                on_notice=lambda line: progress.console.print(line, markup=False, highlight=False),
                backend=backend,
            )
    finally:
        if backend is not None:
            backend.close()
        if progress.live.is_started:
            progress.stop()
