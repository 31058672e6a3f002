"""`lmr-author validate`: check task folders with named rules, optionally prove them in Docker.

Static rules read info.json, the golden, goal and test files and the Dockerfile; they
take seconds for a whole benchmark. ``--run`` adds the dynamic proof (golden passes,
masked fails) in Docker for tasks without static errors. ``--fix`` first applies the
safe mechanical repairs. Exit 0 when no errors (warnings too with ``--strict``),
1 with findings, 2 for usage errors.
"""

from __future__ import annotations

import argparse
import json
import sys
from contextlib import nullcontext
from pathlib import Path
from typing import Any

from lmr_author.commands._executor import (
    add_executor_options,
    slurm_backend,
    slurm_options_given,
)
from lmr_author.commands._provisions import add_provision_options, hub_of
from lmr_author.commands._runtime import add_runtime_option
from lmr_author.commands._types import positive_float
from lmr_author.util.errors import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, UserError

EPILOG = """\
examples:
  lmr-author validate benchmark/              every task of a benchmark
  lmr-author validate benchmark/01-DPO --fix  repair alias keys, categories, folder_name
  lmr-author validate benchmark/ --json       machine-readable findings
  lmr-author validate --list-rules            the rule ids and what they check

exit codes: 0 no errors, 1 errors found (or warnings with --strict), 2 usage error.
"""


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    parser = subparsers.add_parser(
        "validate",
        help="check task folders (static rules; --run proves them in Docker)",
        description=(
            "Check one task folder, or every task folder of a benchmark folder, with named\n"
            "rules. Each finding has a rule id, a severity, the file and JSON path or line\n"
            "it concerns, and a hint. Warnings alone exit 0 unless --strict."
        ),
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="a task folder (with info.json) or a folder of task folders",
    )
    parser.add_argument("--json", action="store_true", help="print the findings as JSON")
    parser.add_argument(
        "--verbose",
        "-v",
        action="store_true",
        help="one line per finding (default: findings of one rule that say the same thing "
        "are one line with a count and the first places)",
    )
    parser.add_argument(
        "--fix",
        action="store_true",
        help="first apply safe repairs to info.json (alias key, category spelling, "
        "folder_name) and to copies of the goal (bytecode and build copies deleted, a copy "
        "masked) and print them; with --run, also declare the GPU the golden code needs",
    )
    parser.add_argument(
        "--schema-only",
        action="store_true",
        help="run only the rules that read info.json alone (JSON syntax, schema, spellings)",
    )
    parser.add_argument(
        "--strict", action="store_true", help="exit 1 on warnings too, not only on errors"
    )
    parser.add_argument(
        "--ignore",
        action="append",
        default=[],
        metavar="RULE",
        help="skip a rule (repeatable, or comma-separated)",
    )
    parser.add_argument(
        "--select",
        action="append",
        default=[],
        metavar="RULE",
        help="run only these rules (repeatable, or comma-separated)",
    )
    parser.add_argument(
        "--list-rules", action="store_true", help="list the rules (static, and --run's) and exit"
    )
    dynamic = parser.add_argument_group("dynamic proof in Docker (--run)")
    dynamic.add_argument(
        "--run",
        action="store_true",
        help="also build each task's image and check that the golden code passes and the "
        "masked code fails (tasks with static errors are skipped)",
    )
    dynamic.add_argument(
        "--base-image",
        metavar="IMAGE",
        default=None,
        help="base image to build the task images on (default: the Dockerfile's FROM)",
    )
    dynamic.add_argument(
        "--timeout",
        type=positive_float,
        default=120.0,
        metavar="SECONDS",
        help="time limit of one test file (default: %(default)s)",
    )
    add_provision_options(dynamic)
    dynamic.add_argument(
        "--mutants",
        action="store_true",
        help="with --run: also run the tests on mutants of each golden goal function and "
        "report the share they kill and the survivors (test strength)",
    )
    dynamic.add_argument(
        "--workers",
        "-j",
        type=int,
        default=2,
        metavar="N",
        help="with --mutants: containers at once, each running its share of an "
        "implementation's mutants (default: %(default)s)",
    )
    add_runtime_option(dynamic)
    add_executor_options(dynamic)
    dynamic.add_argument(
        "--slurm-dir",
        type=Path,
        metavar="DIR",
        help="with --executor slurm: the folder for run requests and results, on a file "
        "system the nodes share (default: slurm/ in lmr-author's cache folder)",
    )
    parser.set_defaults(handler=_validate)


def _rule_ids(values: list[str]) -> list[str]:
    return [part.strip() for value in values for part in value.split(",") if part.strip()]


def _validate(args: argparse.Namespace) -> int:
    from rich.console import Console

    from lmr_author.commands._render_validate import print_report
    from lmr_author.validate.fixes import apply_fixes, apply_run_fixes
    from lmr_author.validate.report import to_json
    from lmr_author.validate.static import discover_tasks, select_rules, validate_task

    rules = select_rules(
        schema_only=args.schema_only,
        ignore=_rule_ids(args.ignore),
        only=_rule_ids(args.select),
    )
    if args.list_rules:
        return _list_rules(args, rules)
    if not args.paths:
        raise UserError(
            "no PATH given", hint="Give a task folder or a benchmark folder, e.g. benchmark/."
        )
    if args.workers < 1:
        raise UserError(
            f"--workers must be at least 1, got {args.workers}",
            hint="Give --workers 1 or more.",
            exit_code=EXIT_USAGE,
        )
    if args.mutants and not args.run:
        raise UserError(
            "--mutants needs --run",
            hint="Use 'validate --run --mutants PATH'.",
            exit_code=EXIT_USAGE,
        )
    executor_options = ["--executor"] if args.executor != "local" else []
    executor_options += slurm_options_given(args)
    executor_options += ["--slurm-dir"] if args.slurm_dir is not None else []
    for option in executor_options:
        if not args.run:
            raise UserError(
                f"{option} is for validate --run", hint="Add --run.", exit_code=EXIT_USAGE
            )
    if args.slurm_dir is not None and args.executor != "slurm":
        raise UserError(
            "--slurm-dir is for --executor slurm",
            hint="Add --executor slurm.",
            exit_code=EXIT_USAGE,
        )
    if args.timeout <= 0:
        raise UserError("--timeout must be a positive number of seconds", exit_code=EXIT_USAGE)
    out = Console(highlight=False)
    out.soft_wrap = not out.is_terminal  # one finding per line when piped (grep-able)
    err = Console(stderr=True, highlight=False)
    task_dirs = discover_tasks(args.paths)

    fixes: list[dict[str, str]] = []
    if args.fix:
        for task_dir in task_dirs:
            for change in apply_fixes(task_dir):
                fixes.append({"task": task_dir.name, **change.to_json()})
                if not args.json:
                    # info.json's repairs name a JSON path; the others their file.
                    file = "info.json" if change.where.startswith("$") else change.where
                    out.print(f"fixed {task_dir.name}/{file}: {change.description}")

    reports = []
    show_progress = not args.json and err.is_terminal and len(task_dirs) > 3
    with err.status("validating…") if show_progress else nullcontext() as status:
        for task_dir in task_dirs:
            if status is not None:
                status.update(f"validating {task_dir.name}…")
            reports.append(validate_task(task_dir, schema_only=args.schema_only, rules=rules))

    if args.run:
        _run_in_sandboxes(args, task_dirs, reports, rules, out, err)
    if args.run and args.fix:  # what only the run shows (the GPU the golden code needs)
        for report in reports:
            for change in apply_run_fixes(report):
                fixes.append({"task": report.name, **change.to_json()})
                if not args.json:
                    out.print(f"fixed {report.name}/info.json: {change.description}")

    mutants = getattr(args, "mutation_reports", None)
    if args.json:
        document = to_json(reports)
        if args.fix:
            document["fixes"] = fixes
        if mutants is not None:
            from lmr_author.mutation.summary import summary_json

            document["mutants"] = summary_json(mutants)
        sys.stdout.write(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    else:
        print_report(out, reports, verbose=args.verbose)
        if mutants is not None:
            from lmr_author.commands._mutants import print_mutation_reports

            print_mutation_reports(mutants, out=out, verbose=args.verbose)
    errors = sum(r.errors for r in reports)
    warnings = sum(r.warnings for r in reports)
    return EXIT_FINDINGS if errors or (args.strict and warnings) else EXIT_OK


def _run_in_sandboxes(
    args: argparse.Namespace,
    task_dirs: list[Path],
    reports: list[Any],
    rules: list[Any],
    out: Any,
    err: Any,
) -> None:
    """``--run`` (and ``--mutants``): here, or through Slurm with ``--executor slurm``."""
    from lmr_author.sandbox.limits import Limits
    from lmr_author.sandbox.run_spec import Runner
    from lmr_author.util.locations import cache_dir
    from lmr_author.validate.proof import prove_reports

    def progress(line: str) -> None:
        err.print(line, highlight=False, markup=False)

    hf_cache = hub_of(args)
    shared = args.slurm_dir if args.slurm_dir is not None else cache_dir("slurm")
    backend = slurm_backend(
        args,
        lambda p: progress(
            f"slurm: {p.queued} queued, {p.running} running, {p.submitted_jobs} arrays"
        ),
        shared,
        on_note=progress,
        command="validate",
    )
    runner: Runner | None = None
    if backend is not None:
        from lmr_author.executors.slurm import SlurmRunner

        runner = SlurmRunner(backend)
    try:
        prove_reports(
            reports,
            rules,
            base_image=args.base_image,
            timeout_s=args.timeout,
            gpus=args.gpus,
            hf_cache=hf_cache,
            on_progress=progress,
            runner=runner,
        )
        if args.mutants:
            from lmr_author.commands._mutants import mutation_reports

            limits = Limits(timeout_s=args.timeout, gpus=args.gpus, hf_cache=hf_cache)
            args.mutation_reports = mutation_reports(
                task_dirs,
                base_image=args.base_image,
                limits=limits,
                err=err,
                runner=runner,
                workers=args.workers,
            )
    finally:
        if backend is not None:
            backend.close()


def _list_rules(args: argparse.Namespace, rules: list[Any]) -> int:
    if args.json:
        sys.stdout.write(json.dumps([r.to_json() for r in rules], indent=2) + "\n")
        return EXIT_OK
    width = max(len(r.id) for r in rules)
    for current in rules:
        print(f"{current.id:<{width}}  {current.severity:<7}  {current.summary}")
    return EXIT_OK
