"""`lmr-author prepare`: one agent workspace per implementation (the paper's agent setting)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from lmr_author.util.errors import EXIT_FINDINGS, EXIT_OK

SETTINGS = ("full", "paper-only", "paper-and-goal-file")

DESCRIPTION = """\
Write one workspace per implementation of the benchmark, holding what the paper's agent
setting gives an agent (§4.1, §5.2): paper.pdf, INSTRUCTION.md naming the goal function
and its file, and the repository in the chosen setting:

  full                 the masked repository (unit tests included)
  paper-and-goal-file  only the masked goal file of the repository
  paper-only           no repository: the agent creates the goal file

Each workspace is OUT/<task>/<index>/, ready for OpenHands or any coding agent.
Tasks that cannot be loaded are listed first on stderr, one line each with the reason,
and implementations whose inputs are missing after them; both are left out (exit
status 1; --json lists the tasks under skipped_tasks) and the others are prepared.
OUT/lmr-workspaces.json records the SHA-256 of every file as prepared, so that
'lmr-author collect' can tell what the agent changed.

A workspace that would hold a copy of its goal function (another module, a notebook,
bytecode, a build copy, git history, the paper's code: what 'lmr-author validate'
reports as answer-leak, in what the setting gives) is left out too, unless
--allow-leaks. A task with paper.json but no paper.pdf gets a PDF of its text.
"""


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    parser = subparsers.add_parser(
        "prepare",
        help="write agent workspaces (paper, masked repository, instruction)",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("benchmark", type=Path, help="a benchmark folder or one task folder")
    parser.add_argument("--setting", choices=SETTINGS, default="full", help="(default: full)")
    parser.add_argument("--out", "-o", type=Path, required=True, metavar="DIR", help="new folder")
    parser.add_argument(
        "--task", action="append", default=[], metavar="NAME", help="only this task (repeatable)"
    )
    parser.add_argument("--json", action="store_true", help="print the manifest as JSON")
    parser.add_argument(
        "--allow-leaks",
        action="store_true",
        help="write workspaces that hold a copy of their goal function (each copy is "
        "listed on stderr) instead of leaving them out",
    )
    parser.set_defaults(handler=_prepare)


def _prepare(args: argparse.Namespace) -> int:
    from lmr_author.commands._benchmark import load_for_command, with_skipped
    from lmr_author.generation.prompt import Setting
    from lmr_author.workspaces import MANIFEST_FILE, prepare_workspaces

    benchmark = load_for_command(args.benchmark, args.task)
    skipped: list[str] = []

    def on_skipped(line: str) -> None:
        skipped.append(line)
        print(f"not prepared: {line}", file=sys.stderr)

    def on_note(line: str) -> None:
        print(f"note: {line}", file=sys.stderr)

    manifest = prepare_workspaces(
        benchmark.tasks,
        Setting(args.setting),
        args.out,
        benchmark=args.benchmark,
        on_skipped=on_skipped,
        allow_leaks=args.allow_leaks,
        on_note=on_note,
    )
    done = EXIT_FINDINGS if benchmark.broken or skipped else EXIT_OK
    if args.json:
        print(json.dumps(with_skipped(manifest.to_json(), benchmark), indent=2))
        return done
    for entry in manifest.workspaces:
        print(f"{args.out / entry.path}  ({len(entry.files)} files, edit {entry.goal_file})")
    print(
        f"prepared {len(manifest.workspaces)} workspaces ({args.setting}) in {args.out}; "
        f"manifest {args.out / MANIFEST_FILE}"
    )
    return done
