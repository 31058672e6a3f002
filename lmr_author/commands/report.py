"""`lmr-author report`: the paper's tables (2, 3, 6, per category, Figure 2, pass@k, Table 5)."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lmr_author.commands._label_options import add_label_file_options, label_file_options
from lmr_author.util.errors import EXIT_FINDINGS, EXIT_OK, UserError

if TYPE_CHECKING:
    from lmr_author.domain.benchmark import Benchmark

DESCRIPTION = """\
Report eval outputs the way the paper does: Table 2 (unit-test accuracy, LLM
judge and human CC / LC / LI per system), Table 3 (settings side by side, for
eval outputs named with --setting NAME=PATH), Table 6 (completely correct vs
not), unit-test accuracy per category, the benchmark's category distribution
(Figure 2) and, for systems generated with --samples, pass@1 and pass@k.
--regression fits the logistic regression of Table 5 (success on the
repository metrics and system dummies; docs/metrics.md) on the runs of the
eval outputs and the test logs of the published results.txt files, measured
on the tasks of --benchmark; the tasks it cannot measure are left out and
listed under the coefficient table. --reference-system takes any spelling
of a system (OpenHands/gpt4.1 too).

An Inspect log of lmr_author/lmr_bench (docs/inspect.md) is read as the eval
output it holds. Published results join as RESULTS_DIR too: the published results/ folder (its
unit_test_evaluation/, llm_as_a_judge_evaluation/ and human_evaluation/ are
all read; a label file with a 0 on the 0..2 scale is read shifted by 1, and
said so), or one of its folders; or name them one by one with
--published-results (results.txt files or folders of them), --published-judge
(folders of <agent>/<model>/*_analysis.txt) and --human. Systems and tasks
match through one identity (OpenHands/gpt4o is openhands_agent-gpt4o).
--compare-printed FILE compares Table 2 cell by cell with a printed table
(docs/lmr-bench-table2.json holds the paper's) and footnotes each cell that
differs, with the reason when the numbers show it.

Output: Markdown (default) or JSON (--format json) on stdout or to -o FILE,
and with --html DIR an HTML page with plots (PNG and SVG). Human labels come
from --human (label stores or label files; default: the label store, when it
exists).

Tasks of the benchmark that cannot be loaded (for --regression: also those
missing their repository or files) are listed first on stderr, one line each
with the reason, and left out; the exit status is then 1 and --format json
lists them under skipped_tasks. 0 otherwise, 2 usage or input error.
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
    parser.add_argument(
        "outputs",
        nargs="*",
        type=Path,
        metavar="RESULTS_DIR",
        help="eval outputs, Inspect logs (.eval, .json), or published result folders",
    )
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
    add_label_file_options(parser)
    parser.add_argument(
        "--published-results",
        action="append",
        default=[],
        type=_maybe_named_path,
        metavar="[NAME=]PATH",
        help="a published results.txt or a folder of them (repeatable; NAME defaults to "
        "the agent/model folders)",
    )
    parser.add_argument(
        "--published-judge",
        action="append",
        default=[],
        type=Path,
        metavar="DIR",
        help="a folder of published judge outputs <agent>/<model>/*_analysis.txt",
    )
    parser.add_argument(
        "--compare-printed",
        type=Path,
        metavar="FILE",
        help="footnote the cells of Table 2 that differ from this printed table (JSON)",
    )
    parser.add_argument(
        "--k", dest="ks", action="append", type=int, default=[], metavar="K", help="pass@K"
    )
    parser.add_argument("--regression", action="store_true", help="fit Table 5's regression")
    parser.add_argument("--reference-system", metavar="NAME", help="the regression's reference")
    parser.add_argument("--format", choices=("md", "json"), default="md", help="(default: md)")
    parser.add_argument("-o", "--output", type=Path, metavar="FILE", help="write here")
    parser.add_argument("--html", type=Path, metavar="DIR", help="also write an HTML page")
    parser.set_defaults(handler=_report)


@dataclass
class _Inputs:
    """What the command line names, sorted by kind."""

    eval_outputs: list[Any] = field(default_factory=list)  # EvalSource
    results: list[tuple[str | None, Path]] = field(default_factory=list)
    judges: list[Path] = field(default_factory=list)
    label_files: list[Path] = field(default_factory=list)  # from published folders
    #: Inspect logs read as eval output folders (removed on exit), and their log files.
    scratch: list[Any] = field(default_factory=list)
    origins: dict[str, str] = field(default_factory=dict)

    def named(self, text: str) -> str:
        """``text`` with each Inspect log's scratch folder replaced by the log's path."""
        for folder, log in self.origins.items():
            text = text.replace(folder, log)
        return text


def _inputs(args: argparse.Namespace) -> _Inputs:
    from lmr_author.eval_output import is_eval_output
    from lmr_author.reporting.published_sources import find_published
    from lmr_author.reporting.tables import EvalSource

    found = _Inputs()
    for path in args.outputs:
        if path.suffix in (".eval", ".json") and path.is_file():
            found.eval_outputs.append(EvalSource(_from_inspect_log(path, found)))
            continue
        if not path.is_dir() or is_eval_output(path):
            found.eval_outputs.append(EvalSource(path))
            continue
        published = find_published(path)
        if published.empty:
            raise UserError(
                "is neither an eval output (results.json, runs/, judgments/) nor a folder of "
                "published results (unit_test_evaluation/, llm_as_a_judge_evaluation/, "
                "human_evaluation/, <agent>/<model>/results.txt or *_analysis.txt)",
                file=path,
                hint="Give RESULTS_DIR an eval output or the published results/ folder.",
            )
        found.results += [(None, p) for p in published.results]
        found.judges += published.judges
        found.label_files += published.label_files
    for name, path in args.settings:
        if path.suffix in (".eval", ".json") and path.is_file():
            path = _from_inspect_log(path, found)
        found.eval_outputs.append(EvalSource(path, name))
    for name, path in args.published_results:
        if path.is_dir():
            listed = find_published(path).results
            if not listed:
                raise UserError(
                    "holds no results.txt (at <agent>/<model>/results.txt)",
                    file=path,
                    hint="Give --published-results a results.txt or a folder of them.",
                )
            found.results += [(name if len(listed) == 1 else None, p) for p in listed]
        else:
            found.results.append((name, path))
    found.judges += args.published_judge
    return found


def _from_inspect_log(path: Path, found: _Inputs) -> Path:
    """An Inspect log written as an eval output folder, for this command's lifetime."""
    import tempfile

    try:
        from lmr_author.inspect_bridge.logs import write_eval_output
    except ImportError:
        raise UserError(
            "reading an Inspect log needs Inspect AI",
            file=path,
            hint="pip install 'lmr-author[inspect]'.",
        ) from None
    scratch = tempfile.TemporaryDirectory(prefix="lmr-report-inspect-")
    found.scratch.append(scratch)
    folder = write_eval_output(path, Path(scratch.name))
    found.origins[str(folder)] = str(path)
    return folder


def _report(args: argparse.Namespace) -> int:
    from lmr_author.commands._render_report import regression_json, to_markdown, write_html
    from lmr_author.domain.identity import load_identity
    from lmr_author.reporting.tables import build_report
    from lmr_author.util.atomic import atomic_write_text

    inputs = _inputs(args)
    if not (inputs.eval_outputs or inputs.results or inputs.judges or inputs.label_files):
        raise UserError(
            "nothing to report",
            hint="Give eval output folders, the published results/ folder, --setting "
            "NAME=DIR, --published-results FILE or --published-judge DIR.",
        )
    if any(k < 1 for k in args.ks):
        raise UserError("--k must be 1 or more")
    from lmr_author.eval_output import find_benchmark

    sources = inputs.eval_outputs
    identity = load_identity(args.aliases)
    benchmark = args.benchmark or (find_benchmark(sources[0].path) if sources else None)
    loaded = _load_listing_broken(benchmark, regression=args.regression)
    labels, label_notes, explicit = _labels(args, inputs, benchmark, identity)
    try:
        report = build_report(
            sources,
            labels=labels,
            published=inputs.results,
            published_judges=inputs.judges,
            label_rows=explicit,
            benchmark=benchmark,
            ks=args.ks,
            identity=identity,
        )
    except UserError as error:  # it names an Inspect log, not its scratch copy
        raise UserError(
            inputs.named(error.message),
            file=inputs.named(error.file or "") or None,
            where=error.where,
            hint=error.hint,
            exit_code=error.exit_code,
        ) from None
    report.notes[:0] = label_notes
    report.notes[:] = [inputs.named(note) for note in report.notes]
    for row in report.rows:
        row.origin = inputs.named(row.origin)
    if args.compare_printed is not None:
        from lmr_author.reporting.printed import compare_printed, load_printed_table

        report.footnotes = compare_printed(report, load_printed_table(args.compare_printed))
    regression = None
    if args.regression:
        regression = _regression(args, report, sources, inputs, identity)
    if args.format == "json":
        data = report.to_json()
        if loaded is not None and loaded.broken:
            data["skipped_tasks"] = [item.to_json() for item in loaded.broken]
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
        from lmr_author.reporting.plots import INSTALL_HINT, available

        written = write_html(report, args.html, regression)
        print(f"wrote {written[0]} and {len(written) - 1} plot files", file=sys.stderr)
        if not available():
            print(f"note: {INSTALL_HINT}", file=sys.stderr)
    refused = _refused_records(sources)
    broken = loaded is not None and loaded.broken
    return EXIT_FINDINGS if broken or refused else EXIT_OK


def _refused_records(sources: Any) -> list[str]:
    """Run records the report left out (unreadable, or they do not verify: a file they
    point at is missing or changed, or their own fields were edited), said on stderr
    too: the tables above do not count them, and the exit code is 1."""
    from lmr_author.eval_output import scan_runs

    refused = [line for source in sources for line in scan_runs(source.path)[1]]
    for line in refused:
        print(f"report: left out: {line}", file=sys.stderr)
    return refused


def _load_listing_broken(benchmark: Path | None, *, regression: bool) -> Benchmark | None:
    """The benchmark as the report reads it, its broken tasks listed on stderr first
    (the regression measures each task's repository and golden file, so it needs them)."""
    if benchmark is None or not benchmark.is_dir():
        return None
    from lmr_author.commands._benchmark import load_for_command

    return load_for_command(benchmark, runnable=regression)


def _regression(
    args: argparse.Namespace, report: Any, sources: list[Any], inputs: _Inputs, identity: Any
) -> Any:
    """Table 5 over the runs of the eval outputs and the logs of the published results."""
    import dataclasses

    from lmr_author.reporting.regression import fit_success_model
    from lmr_author.reporting.success import success_table

    if not report.benchmark:
        raise UserError(
            "--regression needs the benchmark's tasks (it measures their repositories)",
            hint="Pass --benchmark DIR.",
        )
    table = success_table(
        [s.path for s in sources],
        Path(report.benchmark),
        published=inputs.results,
        identity=identity,
    )
    report.notes.extend(table.notes)
    reference = args.reference_system
    if reference is not None and reference not in {row.system for row in table.rows}:
        reference = identity.canonical_system(reference)  # OpenHands/gpt4.1, say
    fitted = fit_success_model(table.rows, reference_system=reference)
    return dataclasses.replace(fitted, left_out=tuple(table.left_out))


def _labels(
    args: argparse.Namespace, inputs: _Inputs, benchmark: Path | None, identity: Any
) -> tuple[list[Any], list[str], bool]:
    """Human labels, notes on how files were read, and whether they were named explicitly
    (then labels of systems without runs make rows of their own)."""
    from lmr_author.labels.published import read_label_file_scaled, task_names
    from lmr_author.labels.sources import SCALED_NOTE, load_human_labels
    from lmr_author.labels.store import default_store_path

    if args.no_human:
        return [], [], False
    tasks = task_names(benchmark) if benchmark is not None and benchmark.is_dir() else None
    options = label_file_options(args)
    labels: list[Any] = []
    notes: list[str] = []
    for path in inputs.label_files:
        found, note = read_label_file_scaled(
            path, identity, tasks=tasks, annotator=options.annotator, shift=options.shift
        )
        labels += found
        notes += [note] if note else []
    if args.human or not inputs.label_files:
        if not args.human and not default_store_path().exists():
            return labels, notes, bool(inputs.label_files)
        found, described = load_human_labels(
            args.human,
            aliases=identity,
            tasks=tasks,
            shift=options.shift,
            annotator=options.annotator,
        )
        labels += found
        notes += [line for line in described if line.endswith(SCALED_NOTE)]
    return labels, notes, bool(args.human or inputs.label_files)
