"""`lmr-author strengthen`: a replay test beside each implementation's published test,
recorded from what the golden goal function does under that test."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lmr_author.commands._provisions import add_provision_options, hub_of
from lmr_author.util.errors import EXIT_FINDINGS, EXIT_OK, UserError

if TYPE_CHECKING:
    from lmr_author.authoring.strengthen import Strengthened, TaskStrengthened

DESCRIPTION = """\
Make a task's tests catch wrong answers. A published test often checks little (a
shape, a loose tolerance, a log line that never fails), so most wrong versions of the
goal function pass it. For each implementation, strengthen runs its own unit test with
the golden goal file in the task's image and records every call the test makes to the
goal function: the arguments and the object a method belongs to, what it returns, what
it changes in place, where the random generators stood. It records twice and leaves out
(naming them) the calls whose results differ, samples a test's calls when it makes many
(spread over the whole run, repeats kept once, at most --max-fixture-mb of fixtures),
and writes a replay test, unit_test/replay_test_<k>.py, beside the published test.

The published test is not changed and still runs: info.json names the replay test in
extra_unit_tests, outside the unit_test/unit_test_*.py glob of the published loop, and
'lmr-author eval' runs both, so a candidate must pass both. The task is changed in a
copy first and swapped into place only when the proof holds there (golden passes,
masked fails); an implementation whose calls cannot be recorded is named with why and
keeps its files as they were.

The mutation score (validate --run --mutants) is printed before and after, per
implementation, and the new score is stored in info.json (mutation_score) with a hash
of the task's content, so validate and report show it without running anything until
the task changes. Survivors the recorded calls cannot tell apart are listed: add calls
that do with --driver FILE (Python that calls the goal function, as the app's driver),
or mark them equivalent in info.json with why.

exit status: 0 when every implementation was strengthened, 1 when one could not be,
2 on a usage or input error.
"""


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    parser = subparsers.add_parser(
        "strengthen",
        help="add a replay test recorded from the golden code to each task's published test",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("tasks", nargs="+", type=Path, metavar="TASK", help="task folders")
    parser.add_argument(
        "--impl", type=int, metavar="N", help="only implementation N (its index in info.json)"
    )
    parser.add_argument(
        "--driver",
        type=Path,
        metavar="FILE",
        help="a Python file that calls the goal function: its calls are recorded too "
        "(one task; with --impl N when it has several implementations)",
    )
    parser.add_argument(
        "--base-image",
        metavar="IMAGE",
        help="base image to build the task images on (default: the Dockerfile's FROM)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=120.0,
        metavar="SECONDS",
        help="time limit of one test file in the proof and the mutants (default: 120); "
        "a recording gets five times as long",
    )
    parser.add_argument(
        "--max-calls",
        type=int,
        default=None,
        metavar="N",
        help="calls kept per recording, spread over the run (default: 20)",
    )
    parser.add_argument(
        "--max-fixture-mb",
        type=float,
        default=8.0,
        metavar="MB",
        help="size of one replay test's fixtures at most (default: 8)",
    )
    parser.add_argument(
        "--no-mutants",
        action="store_true",
        help="skip the mutation score before and after (faster; nothing is stored)",
    )
    parser.add_argument(
        "--measure-only",
        action="store_true",
        help="record nothing: prove the tests as they are, measure their mutation score and "
        "store it in info.json (validate says when a stored score is stale)",
    )
    parser.add_argument("--json", action="store_true", help="print the outcome as JSON")
    parser.add_argument("--verbose", "-v", action="store_true", help="print each survivor's diff")
    add_provision_options(parser)
    parser.set_defaults(handler=_strengthen)


def _strengthen(args: argparse.Namespace) -> int:
    from rich.console import Console

    from lmr_author.authoring.strengthen import dumps, strengthen_task
    from lmr_author.domain.task import find_task_dirs
    from lmr_author.sandbox.limits import Limits

    if args.measure_only and (args.no_mutants or args.driver is not None):
        raise UserError("--measure-only records nothing and measures: no --driver, no --no-mutants")
    if args.max_calls is not None and args.max_calls < 1:
        raise UserError("--max-calls must be 1 or more")
    if args.max_fixture_mb <= 0:
        raise UserError("--max-fixture-mb must be more than 0")
    driver = None
    task_dirs = [found for given in args.tasks for found in find_task_dirs(given)]
    if args.driver is not None:
        if len(task_dirs) != 1:
            raise UserError(
                f"--driver adds calls to one task's goal; {len(task_dirs)} tasks were given",
                hint="Strengthen one task with --driver, the others without.",
            )
        try:
            driver = args.driver.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise UserError(
                f"cannot read the driver ({error})",
                file=args.driver,
                hint="Give a Python file.",
            ) from None
    out = Console(highlight=False)
    err = Console(stderr=True, highlight=False)
    limits = Limits(timeout_s=args.timeout, gpus=args.gpus, hf_cache=hub_of(args))
    outcomes = []
    for task_dir in task_dirs:
        outcome = strengthen_task(
            task_dir,
            base_image=args.base_image,
            impl_index=args.impl,
            driver=driver,
            limit=args.max_calls,
            max_bytes=int(args.max_fixture_mb * (1 << 20)),
            limits=limits,
            record_timeout_s=5 * args.timeout,
            mutants=not args.no_mutants,
            measure_only=args.measure_only,
            on_progress=lambda line: err.print(line, markup=False),
        )
        outcomes.append(outcome)
        if not args.json:
            _print_task(outcome, out, verbose=args.verbose)
    if args.json:
        sys.stdout.write(dumps(outcomes) + "\n")
    elif len(outcomes) > 1 or any(len(o.implementations) > 1 for o in outcomes):
        _print_table(outcomes, out)
    failed = any(
        o.error or any(i.error or not (i.done or args.measure_only) for i in o.implementations)
        for o in outcomes
    )
    return EXIT_FINDINGS if failed else EXIT_OK


def _score(value: Any) -> str:
    """``29% (5/17)`` of a report or a stored strength; ``-`` when not measured."""
    from lmr_author.domain.test_strength import Strength

    if value is None:
        return "-"
    if isinstance(value, Strength):
        return f"{value.score:.0%} ({value.stored.killed}/{value.counted}, stored)"
    return f"{value.score:.0%} ({value.killed}/{value.scored})"


def _print_task(outcome: TaskStrengthened, out: Any, *, verbose: bool) -> None:
    from rich.text import Text

    from lmr_author.authoring.strengthen import plan_summary

    def say(text: str, style: str = "") -> None:
        out.print(Text(text, style=style))

    if outcome.error:
        say(f"{outcome.task}: not strengthened: {outcome.error}", "bold red")
        return
    for item in outcome.implementations:
        say(f"{item.task} #{item.impl_index} {item.qualname}", "bold")
        if item.plan is not None:
            say(f"  {plan_summary(item.plan)}")
            for note in item.plan.notes:
                say(f"  note: {note}", "dim")
        elif item.before is None and item.after is not None and not item.error:
            say("  measured (nothing recorded): the score is stored in info.json")
        if item.error:
            say(f"  not strengthened, its files are as they were: {item.error}", "red")
        say(f"  mutation score: {_score(item.before)} -> {_score(item.after)}")
        _print_survivors(item, say, verbose=verbose)
    if outcome.written:
        say(f"{outcome.task}: written (info.json names the replay tests in extra_unit_tests)")


def _print_survivors(item: Strengthened, say: Any, *, verbose: bool) -> None:
    if item.after is None:
        return
    for mutant, marked in item.after.equivalent:
        say(f"  equivalent {mutant.key} ({mutant.operator}): {marked.reason}", "dim")
    for mutant in item.after.survivors:
        say(f"  survivor {mutant.key} ({mutant.operator}: {mutant.description})")
        if verbose:
            say(mutant.diff)
    if item.after.survivors:
        say(
            "  The recorded calls cannot tell these from the golden code: add calls that do "
            "with --driver FILE, or mark one equivalent in info.json "
            '(implementations[i].equivalent_mutants: [{"mutant": KEY, "reason": "..."}]).',
            "dim",
        )


def _print_table(outcomes: list[TaskStrengthened], out: Any) -> None:
    from rich.table import Table

    table = Table(title="Mutation score before and after strengthen")
    for name in ("implementation", "before", "after", "fixtures", "survivors", "strengthened"):
        table.add_column(name)
    for outcome in outcomes:
        for item in outcome.implementations:
            table.add_row(
                f"{item.task} #{item.impl_index}",
                _score(item.before),
                _score(item.after),
                str(len(item.plan.calls)) if item.plan else "-",
                str(len(item.after.survivors)) if item.after else "-",
                "yes" if item.done else "no",
            )
    out.print(table)
