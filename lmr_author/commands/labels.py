"""`lmr-author labels`: import, export and list human labels in the label store."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lmr_author.commands._label_options import (
    add_label_file_options,
    add_store_option,
    label_file_options,
)
from lmr_author.util.errors import EXIT_OK, UserError

if TYPE_CHECKING:
    from lmr_author.labels.model import Label


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    parser = subparsers.add_parser(
        "labels",
        help="import, export and list human labels",
        description=(
            "Manage the human label store (an SQLite file; default: labels.sqlite in the "
            "lmr-author data folder, or --store). Label files use the published LMR-Bench "
            "shape (schemas/labels.schema.json): annotator, agent_type, model_name, "
            "paper_index, function_index (from 0), human_judge_result (1..3), comment."
        ),
    )
    actions = parser.add_subparsers(title="actions", metavar="ACTION")

    imp = actions.add_parser(
        "import",
        help="add the labels of published-shape JSON files to the store",
        description=(
            "Add the labels of published-shape JSON files to the store. A file with a bad "
            "record (e.g. a label outside 1..3) is refused as a whole, naming the record, "
            "and every file is checked before any label is written. Labels identical to "
            "the annotator's latest label of the item are skipped. A file on a 0..2 scale "
            "imports with --shift 1 (or --scale 0-2); --dry-run shows what would be "
            "imported (first records before and after, counts per label) and writes nothing."
        ),
    )
    imp.add_argument("files", nargs="+", type=Path, metavar="FILE")
    add_store_option(imp)
    add_label_file_options(imp, annotator_flags=("--annotator", "--default-annotator"))
    imp.add_argument(
        "--dry-run",
        action="store_true",
        help="show what would be imported (first records, counts per label); write nothing",
    )
    imp.set_defaults(handler=_import)

    exp = actions.add_parser(
        "export",
        help="write the store's labels as a published-shape JSON file",
        description=(
            "Write the latest label of each annotator and item as a published-shape JSON "
            "file (atomically). Three extra keys (task, created_at, candidate_sha256) make "
            "'export' then 'import' give back the same labels; --bare leaves them out."
        ),
    )
    add_store_option(exp)
    exp.add_argument(
        "-o", "--output", type=Path, required=True, metavar="FILE", help="file, or - for stdout"
    )
    exp.add_argument(
        "--annotator", action="append", metavar="NAME", help="only these annotators (repeatable)"
    )
    exp.add_argument("--aliases", type=Path, metavar="FILE", help="name mappings (JSON/TOML)")
    exp.add_argument("--bare", action="store_true", help="only the seven published keys")
    exp.set_defaults(handler=_export)

    lst = actions.add_parser("list", help="show the latest labels in the store")
    add_store_option(lst)
    lst.add_argument("--annotator", metavar="NAME", help="only this annotator")
    lst.add_argument("--json", action="store_true", help="print JSON records")
    lst.set_defaults(handler=_list)

    parser.set_defaults(handler=lambda _args: _usage(parser))


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    raise UserError("choose an action: import, export or list")


def _import(args: argparse.Namespace) -> int:
    from lmr_author.domain.identity import load_identity
    from lmr_author.labels.published import read_label_file, task_names
    from lmr_author.labels.store import LabelStore

    aliases = load_identity(args.aliases)
    tasks = task_names(args.benchmark) if args.benchmark else None
    options = label_file_options(args)
    shift = options.shift or 0
    # Read (and so validate) every file before writing anything.
    per_file = [
        (
            path,
            read_label_file(path, aliases, tasks=tasks, annotator=options.annotator, shift=shift),
        )
        for path in args.files
    ]
    if shift or args.dry_run:
        for path, labels in per_file:
            print(format_preview(path, labels, shift))
    if args.dry_run:
        print("dry run: nothing was imported.")
        return EXIT_OK
    with LabelStore(args.store) as store:
        for path, labels in per_file:
            new = store.add_changed(labels)
            skipped = len(labels) - len(new)
            print(
                f"{path}: imported {len(new)} labels"
                + (f", {skipped} unchanged skipped" if skipped else "")
                + f" into {store.path}"
            )
    return EXIT_OK


def format_preview(path: Path, labels: list[Label], shift: int, rows: int = 3) -> str:
    """What a file gives: its first records as written and as imported, counts per label."""
    from collections import Counter

    from lmr_author.domain.three_way import ThreeWayLabel
    from lmr_author.labels.published import raw_result, read_label_records

    records = read_label_records(path)
    lines = [f"{path}: {len(labels)} label(s)" + (f", shifted by {shift:+d}" if shift else "")]
    for record, label in list(zip(records, labels, strict=False))[:rows]:
        lines.append(
            f"  {label.system} {label.task} #{label.implementation}: "
            f"human_judge_result {raw_result(record)!r} -> {label.label} {label.name}"
        )
    counts = Counter(label.label for label in labels)
    lines.append(
        "  per label: "
        + ", ".join(f"{t.value} {t.short}: {counts.get(t.value, 0)}" for t in sorted(ThreeWayLabel))
    )
    return "\n".join(lines)


def _export(args: argparse.Namespace) -> int:
    from lmr_author.domain.identity import load_identity
    from lmr_author.labels.published import dumps_records, labels_to_records
    from lmr_author.labels.store import LabelStore
    from lmr_author.util.atomic import atomic_write_text

    aliases = load_identity(args.aliases)
    with LabelStore(args.store) as store:
        labels = store.labels()
        store_path = store.path
    if args.annotator:
        wanted = set(args.annotator)
        unknown = wanted - {label.annotator for label in labels}
        if unknown:
            raise UserError(
                f"no labels by {', '.join(sorted(unknown))} in the store",
                file=store_path,
                hint="See 'lmr-author labels list' for the annotators.",
            )
        labels = [label for label in labels if label.annotator in wanted]
    if str(args.output) != "-" and args.output.is_dir():
        raise UserError(
            "-o/--output is a folder; a label export is one JSON file",
            file=args.output,
            hint=f"Name a file, e.g. -o {args.output / 'labels.json'}.",
        )
    text = dumps_records(labels_to_records(labels, aliases, bare=args.bare))
    if str(args.output) == "-":
        sys.stdout.write(text)
    else:
        atomic_write_text(args.output, text)
        print(f"wrote {len(labels)} labels to {args.output}", file=sys.stderr)
    return EXIT_OK


def _list(args: argparse.Namespace) -> int:
    from dataclasses import asdict

    from lmr_author.domain.identity import display_task
    from lmr_author.labels.store import LabelStore

    with LabelStore(args.store) as store:
        labels = store.labels(args.annotator)
    if args.json:
        sys.stdout.write(json.dumps([asdict(label) for label in labels], indent=2) + "\n")
        return EXIT_OK
    from rich import box
    from rich.console import Console
    from rich.table import Table

    # One table per system: the system's name heads it (long names fit once, not per row),
    # names and times never wrap (a task broken over three lines reads as three tasks),
    # and only comments fold.
    console = Console()
    console.print(f"{len(labels)} labels")
    by_system: dict[str, list[Label]] = {}
    for label in labels:
        by_system.setdefault(label.system, []).append(label)
    for system, rows in by_system.items():
        table = Table(
            title=f"{system} ({len(rows)})",
            title_justify="left",
            box=box.SIMPLE_HEAD,
            show_edge=False,
            pad_edge=False,
        )
        table.add_column("annotator", no_wrap=True, overflow="ellipsis", max_width=14)
        table.add_column("task", no_wrap=True, overflow="ellipsis", max_width=28)
        table.add_column("impl", no_wrap=True, justify="right")
        table.add_column("label", no_wrap=True)
        table.add_column("time (UTC)", no_wrap=True)
        table.add_column("comment", overflow="fold", ratio=1)
        for label in rows:
            table.add_row(
                label.annotator,
                display_task(label.task),
                str(label.implementation),
                f"{label.label} {label.name}",
                _compact_time(label.created_at),
                label.comment,
            )
        console.print(table)
    return EXIT_OK


def _compact_time(stamp: str) -> str:
    """``2026-11-23T16:29:01.123Z`` as ``2026-11-23 16:29`` (UTC); other text as it is."""
    from datetime import UTC, datetime

    try:
        moment = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return stamp
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%d %H:%M")
