"""`lmr-author review`: label the runs of an evaluation by hand, in a terminal app.

``lmr-author eval RESULTS --human-review`` is the same command under its older name:
`add_review_options` gives both parsers the same options and `review_folder` runs both.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from lmr_author.commands._help import add_command
from lmr_author.commands._label_options import add_store_option

DESCRIPTION = """\
Open a terminal app to label, by hand, the runs of an earlier evaluation:
RESULTS_DIR is the folder 'lmr-author eval' wrote (its output folder,
lmr-results/ by default). Each item is one run: a system's candidate for one
implementation of a task, shown beside the instruction and the golden
function. You give it the paper's three-way label:

  1  LI  logically incorrect
  2  LC  logically correct, with implementation errors
  3  CC  completely correct

Labeling is blind by default: the system's name is not shown, the unit-test
verdict and the LLM judge's label appear only once you have labeled the item,
and the queue is shuffled (the same order every time for the same annotator).
A label is stored the moment its key is pressed; quitting and starting again
resumes at the first item you have not labeled. Labels go to the label store
(an SQLite file, labels kept per annotator), which 'lmr-author agreement',
'report' and 'labels export' read.

keys: 1/2/3 label, c comment, n/p next/previous, z undo, x clear, u unlabeled
only, d diff, w wrap, [ ] split, q quit.

example:
  lmr-author review lmr-results --annotator alice --sample 50
"""

EPILOG = """\
'lmr-author eval RESULTS_DIR --human-review' is the same command, with the
same options.

exit codes: 0 the app was closed, 2 usage or input error (no runs in
RESULTS_DIR, an empty --annotator, a store that cannot be opened).
"""


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    parser = add_command(
        subparsers,
        "review",
        summary="label eval runs CC / LC / LI by hand, in a terminal app",
        description=DESCRIPTION,
        epilog=EPILOG,
    )
    parser.add_argument(
        "results_dir",
        metavar="RESULTS_DIR",
        type=Path,
        help="the folder 'lmr-author eval' wrote (its runs/ are the items to label)",
    )
    add_review_options(parser)
    parser.set_defaults(handler=review)


def add_review_options(parser: Any, *, shown: bool = True) -> None:
    """Add the review app's options to ``parser`` (or an argument group); ``shown=False``
    leaves them out of the help (``eval`` lists only --human-review)."""

    def text(help_text: str) -> str:
        return help_text if shown else argparse.SUPPRESS

    parser.add_argument(
        "--annotator",
        metavar="NAME",
        default="",
        help=text("your name, required: labels are kept per annotator"),
    )
    add_store_option(parser, shown=shown)
    # The name the option had under 'eval --human-review'; old command lines keep working.
    parser.add_argument("--labels", type=Path, dest="store", help=argparse.SUPPRESS)
    parser.add_argument(
        "--sample",
        type=int,
        metavar="N",
        help=text(
            "label a random sample of N runs instead of all (annotators who give the same "
            "N and --seed get the same runs)"
        ),
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=0,
        metavar="N",
        help=text("seed of --sample; another seed draws another sample (default: %(default)s)"),
    )
    parser.add_argument(
        "--show-verdicts",
        action="store_true",
        help=text("show the unit-test verdict and the judge's label from the start"),
    )
    parser.add_argument(
        "--show-systems",
        action="store_true",
        help=text("name each run's system and group the queue by system"),
    )


def review(args: argparse.Namespace) -> int:
    """The handler of ``review``."""
    return review_folder(args.results_dir, args)


def review_folder(results_dir: Path, args: argparse.Namespace) -> int:
    """Open the review app on ``results_dir`` with `add_review_options`' options: what
    ``review`` and ``eval --human-review`` both run."""
    from lmr_author.tui.review import run_review

    return run_review(
        results_dir,
        args.annotator,
        store_path=args.store,
        sample=args.sample,
        seed=args.seed,
        show_verdicts=args.show_verdicts,
        show_systems=args.show_systems,
    )
