"""`lmr-author report`: the paper's tables (2, 3, 6, per category, Figure 2, pass@k, Table 5)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from lmr_author.errors import EXIT_OK, UserError

DESCRIPTION = """\
Report eval outputs the way the paper does: Table 2 (unit-test accuracy, LLM judge and
human CC / LC / LI per system), Table 3 (settings side by side, for eval outputs named
with --setting NAME=PATH), Table 6 (completely correct vs not), unit-test accuracy per
category, the benchmark's category distribution (Figure 2) and, for systems generated
with --samples, pass@1 and pass@k. Published unit-test summaries (results.txt) join
Table 2 with --published-results. --regression fits the logistic regression of Table 5
(success on the repository metrics and system dummies; docs/metrics.md).

Output: Markdown (default) or JSON (--format json) on stdout or to -o FILE, and with
--html DIR an HTML page with plots (PNG and SVG). Human labels come from --human
(label stores or label files; default: the label store, when it exists).
"""


def _named_path(text: str) -> tuple[str, Path]:
    name, sep, path = text.partition("=")
    if not sep or not name or not path:
        raise argparse.ArgumentTypeError(f"expected NAME=PATH, got {text!r}")
    return name, Path(path)


def _maybe_named_path(text: str) -> tuple[str | None, Path]:
    name, sep, path = text.partition("=")
    if sep and name and path and not Path(text).exists():
        return name, Path(path)
    return None, Path(text)


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    parser = subparsers.add_parser(
        "report",
        help="the paper's tables and plots from eval outputs, judgments and labels",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("outputs", nargs="*", type=Path, metavar="RESULTS_DIR", help="eval outputs")
    parser.add_argument(
        "--setting",
        dest="settings",
        action="append",
        default=[],
        type=_named_path,
        metavar="NAME=RESULTS_DIR",
        help="an eval output run in setting NAME (Table 3; repeatable)",
    )
    parser.add_argument(
        "--human",
        action="append",
        default=[],
        type=Path,
        metavar="FILE_OR_STORE",
        help="label store or label file (repeatable; default: the label store if it exists)",
    )
    parser.add_argument("--no-human", action="store_true", help="leave the human columns empty")
    parser.add_argument(
        "--aliases", type=Path, metavar="FILE", help="name mappings of published label files"
    )
    parser.add_argument(
        "--published-results",
        action="append",
        default=[],
        type=_maybe_named_path,
        metavar="[NAME=]results.txt",
        help="a published unit-test summary (repeatable; NAME defaults to agent/model folders)",
    )
    parser.add_argument("--benchmark", type=Path, metavar="DIR", help="(default: from results)")
    parser.add_argument(
        "--k", dest="ks", action="append", type=int, default=[], metavar="K", help="pass@K"
    )
    parser.add_argument("--regression", action="store_true", help="fit Table 5's regression")
    parser.add_argument("--reference-system", metavar="NAME", help="the regression's reference")
    parser.add_argument("--format", choices=("md", "json"), default="md", help="(default: md)")
    parser.add_argument("-o", "--output", type=Path, metavar="FILE", help="write here")
    parser.add_argument("--html", type=Path, metavar="DIR", help="also write an HTML page")
    parser.set_defaults(handler=_report)


def _report(args: argparse.Namespace) -> int:
    from lmr_author.atomic import atomic_write_text
    from lmr_author.commands._render_report import regression_json, to_markdown, write_html
    from lmr_author.reporting.tables import EvalSource, build_report

    sources = [EvalSource(path) for path in args.outputs]
    sources += [EvalSource(path, name) for name, path in args.settings]
    if not sources and not args.published_results:
        raise UserError(
            "nothing to report",
            hint="Give eval output folders, --setting NAME=DIR or --published-results FILE.",
        )
    if any(k < 1 for k in args.ks):
        raise UserError("--k must be 1 or more")
    from lmr_author.eval_output import find_benchmark

    benchmark = args.benchmark or (find_benchmark(sources[0].path) if sources else None)
    report = build_report(
        sources,
        labels=_labels(args, benchmark),
        published=args.published_results,
        benchmark=benchmark,
        ks=args.ks,
    )
    regression = None
    if args.regression:
        from lmr_author.reporting.regression import fit_success_model
        from lmr_author.reporting.success import success_rows

        if not report.benchmark:
            raise UserError("--regression needs the benchmark", hint="Pass --benchmark DIR.")
        rows, notes = success_rows([s.path for s in sources], Path(report.benchmark))
        report.notes.extend(notes)
        regression = fit_success_model(rows, reference_system=args.reference_system)
    if args.format == "json":
        data = report.to_json()
        if regression is not None:
            data["regression"] = regression_json(regression)
        text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    else:
        text = to_markdown(report, regression)
    if args.output is not None:
        atomic_write_text(args.output, text)
        print(f"wrote {args.output}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    if args.html is not None:
        written = write_html(report, args.html, regression)
        print(f"wrote {written[0]} and {len(written) - 1} plot files", file=sys.stderr)
    return EXIT_OK


def _labels(args: argparse.Namespace, benchmark: Path | None) -> list[Any]:
    """Human labels; published-shape files name tasks by paper index, hence the benchmark."""
    from lmr_author.identity import load_identity
    from lmr_author.labels.published import task_names
    from lmr_author.labels.sources import load_human_labels
    from lmr_author.labels.store import default_store_path

    if args.no_human:
        return []
    if not args.human and not default_store_path().exists():
        return []
    tasks = task_names(benchmark) if benchmark is not None and benchmark.is_dir() else None
    labels, _ = load_human_labels(args.human, aliases=load_identity(args.aliases), tasks=tasks)
    return list(labels)
