"""`lmr-author collect`: edited agent workspaces -> a mirrored submission for `eval`."""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path
from typing import Any

from lmr_author.cst.goal_lines import add_line_option
from lmr_author.util.errors import EXIT_FINDINGS, EXIT_OK

DESCRIPTION = """\
Read the workspaces that 'lmr-author prepare' wrote (after an agent edited them) and
write a submission folder mirroring the benchmark, which 'lmr-author eval' scores.

Only the goal function is taken: it is extracted from each workspace's goal file and
spliced into the benchmark's pristine masked goal file, so edits elsewhere in the goal
file are not scored. Every other change the agent made (edits to tests, fixtures or
other files, new and deleted files, symlinks) is listed and never scored. Workspace
files are read as data: symlinks are never followed, a symlinked goal file is that
item's error. The list is also written to SUBMISSION/lmr-collect.json.
"""

EPILOG = """\
exit codes: 0 collected, nothing changed outside the goal functions; 1 changes outside
the goal functions or workspaces with nothing to collect; 2 usage or input error.
"""


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    parser = subparsers.add_parser(
        "collect",
        help="turn edited agent workspaces into a mirrored submission",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("workspaces", type=Path, help="the folder 'lmr-author prepare' wrote")
    parser.add_argument("--system", required=True, metavar="NAME", help="the system's name")
    parser.add_argument(
        "--out", "-o", type=Path, metavar="SUBMISSION", help="submission folder (default: NAME)"
    )
    parser.add_argument(
        "--benchmark",
        type=Path,
        metavar="DIR",
        help="the benchmark (default: the one recorded by prepare)",
    )
    add_line_option(parser)
    parser.add_argument("--json", action="store_true", help="print the collect report as JSON")
    parser.set_defaults(handler=_collect)


def _collect(args: argparse.Namespace) -> int:
    from lmr_author.commands._benchmark import load_for_command
    from lmr_author.workspaces import collect_workspaces, load_manifest

    manifest = load_manifest(args.workspaces)
    benchmark = args.benchmark or Path(manifest.benchmark)
    tasks = load_for_command(benchmark, sorted({entry.task for entry in manifest.workspaces}))
    out = args.out or Path(args.system)
    from lmr_author.cst.goal_lines import resolve_goal_lines

    lines = resolve_goal_lines(args.goal_lines, tasks.tasks)
    report = collect_workspaces(args.workspaces, manifest, tasks.tasks, args.system, out, lines)
    if args.json:
        print(json.dumps(report.to_json(), indent=2))
    else:
        for item in report.errors:
            print(f"{item.task}#{item.implementation}: nothing collected: {item.reason}")
        for item in report.items:
            if item.collected and item.unchanged:
                print(f"{item.task}#{item.implementation}: the goal file was not edited")
        if report.changes:
            print("changes outside the goal functions (listed, not scored):")
            for change in report.changes:
                print(f"  {change.describe()}")
        # eval reads the system name from the record in the folder: no --system needed.
        command = shlex.join(["lmr-author", "eval", str(benchmark), "-s", str(out)])
        print(
            f"collected {report.collected} of {len(report.items)} implementations into {out} "
            f"(system {args.system}); score it with: {command}",
            file=sys.stderr,
        )
    return EXIT_FINDINGS if report.changes or report.errors or tasks.broken else EXIT_OK
