"""`lmr-author agreement`: how far human annotators and the LLM judge agree."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from lmr_author.commands._label_options import add_label_file_options, label_file_options
from lmr_author.util.errors import EXIT_FINDINGS, EXIT_OK, UserError

DESCRIPTION = """\
Compare human three-way labels (1 logically incorrect, 2 logically correct
with implementation errors, 3 completely correct) with each other and with the
LLM judge: per-system CC / LC / LI distributions (the paper's Table 2),
LLM-human agreement and direct conflicts (1 against 3), pairwise Cohen's kappa
(unweighted and linear-weighted), Krippendorff's alpha (ordinal), Fleiss'
kappa, the same after collapsing to completely correct vs not, confusion
matrices, bootstrap confidence intervals, and the list of disagreements for
adjudication. Items one source has and another lacks are listed; labels of a
candidate that changed since they were given are flagged and not counted.
The terminal report starts with a one-screen summary (what went in, the
headline numbers, what was not counted) and lays its tables out for the
terminal's width.

Human labels come from label stores (.sqlite) and label files in the published
shape, read as 'labels import' reads them (--aliases, --benchmark,
--default-annotator, and --shift or --scale for a file labelled 0..2); without
--human, the default label store. The judge is an eval output
folder (with judgments/ and runs/) or a folder of published judge outputs
(<agent>/<model>/<NN-Task>_<repo>_<k>_analysis.txt)."""

#: Disagreements are results of the analysis, not findings: only what it could not count is.
EPILOG = """\
exit codes:
  0  the analysis ran and counted every judge answer (disagreements included)
  1  some judge answers could not be read: not counted, listed in the report
  2  bad input, e.g. a file that cannot be read or a filter that matches nothing"""


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    parser = subparsers.add_parser(
        "agreement",
        help="agreement between human labels and the LLM judge",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--human",
        nargs="+",
        type=Path,
        default=[],
        metavar="FILE_OR_STORE",
        help="label stores and/or published-shape label files (default: the label store)",
    )
    parser.add_argument(
        "--judge",
        type=Path,
        metavar="RESULTS_DIR_OR_PUBLISHED_FOLDER",
        help="eval output folder or folder of published judge outputs",
    )
    add_label_file_options(parser)
    parser.add_argument(
        "--annotator",
        action="append",
        default=[],
        metavar="NAME",
        help="only this annotator's labels (repeatable; default: every annotator)",
    )
    parser.add_argument(
        "--system",
        action="append",
        default=[],
        metavar="NAME",
        help="only this system's items (repeatable; any spelling the aliases know)",
    )
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="print the report as JSON")
    output.add_argument("--markdown", action="store_true", help="print the report as Markdown")
    parser.add_argument(
        "-o",
        "--output",
        type=Path,
        metavar="FILE",
        help="write the JSON or Markdown report to FILE (atomically) instead of stdout",
    )
    parser.add_argument(
        "--bootstrap",
        type=int,
        default=1000,
        metavar="N",
        help="bootstrap resamples for the confidence intervals, 0 for none (default: 1000)",
    )
    parser.add_argument(
        "--seed", type=int, default=0, metavar="S", help="bootstrap seed (default: 0)"
    )
    parser.add_argument(
        "--limit",
        type=int,
        default=50,
        metavar="N",
        help="rows of the long lists shown in the terminal tables (default: 50)",
    )
    parser.set_defaults(handler=_agreement)


def _agreement(args: argparse.Namespace) -> int:
    from lmr_author.commands._render_agreement import print_report, to_markdown
    from lmr_author.domain.identity import load_identity
    from lmr_author.labels.agreement import Options, analyze
    from lmr_author.labels.published import task_names
    from lmr_author.labels.sources import load_human_labels, load_judge_source
    from lmr_author.util.atomic import atomic_write_text

    if args.bootstrap < 0:
        raise UserError("--bootstrap must be 0 or more", hint="Use 0 to skip the intervals.")
    if args.output is not None and not (args.json or args.markdown):
        raise UserError("-o/--output needs --json or --markdown")
    aliases = load_identity(args.aliases)
    tasks = task_names(args.benchmark) if args.benchmark else None
    options = label_file_options(args)
    labels, described = load_human_labels(
        args.human, aliases=aliases, tasks=tasks, shift=options.shift, annotator=options.annotator
    )
    judge = load_judge_source(args.judge, aliases) if args.judge else None
    report = analyze(
        labels,
        judge,
        aliases=aliases,
        options=Options(bootstrap=args.bootstrap, seed=args.seed),
        inputs={"human": described},
        annotators=args.annotator,
        systems=args.system,
    )
    if args.json or args.markdown:
        text = json.dumps(report.to_json(), indent=2) + "\n" if args.json else to_markdown(report)
        if args.output is not None:
            atomic_write_text(args.output, text)
            print(f"wrote {args.output}", file=sys.stderr)
        else:
            sys.stdout.write(text)
    else:
        print_report(report, limit=max(args.limit, 0))
    if report.unparsed:
        count = len(report.unparsed)
        answers = "1 judge answer" if count == 1 else f"{count} judge answers"
        print(f"{answers} could not be read and are not counted (exit status 1).", file=sys.stderr)
        return EXIT_FINDINGS
    return EXIT_OK
