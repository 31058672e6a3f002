"""The options about labels, shared by every command that takes them.

`labels import`, `agreement` and `report` all read published-shape label files, so they
take the same options, spelt the same way: --aliases, --benchmark, --default-annotator
(``labels import`` also accepts its older --annotator), --shift / --scale. `labels` and
`review` read and write the label store named by --store (`add_store_option`).
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class LabelFileOptions:
    #: None when neither --shift nor --scale was given: readers (agreement, report) then
    #: read a file certainly on the 0..2 scale with +1 and say so; labels import, 0.
    shift: int | None
    annotator: str | None


def add_label_file_options(
    parser: argparse.ArgumentParser, *, annotator_flags: tuple[str, ...] = ("--default-annotator",)
) -> None:
    """Add the label-file options to ``parser`` (see the module docstring)."""
    parser.add_argument(
        "--aliases", type=Path, metavar="FILE", help="extra name mappings (JSON or TOML)"
    )
    parser.add_argument(
        "--benchmark",
        type=Path,
        metavar="DIR",
        help="name tasks by their folder in this benchmark (paper_index 1 -> 01-DPO)",
    )
    parser.add_argument(
        *annotator_flags,
        dest="fill_annotator",
        metavar="NAME",
        help="annotator of label records that lack one",
    )
    scale = parser.add_mutually_exclusive_group()
    scale.add_argument(
        "--shift",
        type=int,
        default=None,
        metavar="N",
        help="add N to every human_judge_result of the label files (1 for a file labelled "
        "0..2; without it, agreement and report read a file with a 0 label that way)",
    )
    scale.add_argument(
        "--scale",
        choices=("1-3", "0-2"),
        help="the label scale of the label files (0-2 is the same as --shift 1)",
    )


def label_file_options(args: argparse.Namespace) -> LabelFileOptions:
    """The options `add_label_file_options` added, resolved."""
    from lmr_author.labels.published import SCALES

    shift = SCALES[args.scale] if args.scale else args.shift
    return LabelFileOptions(shift=shift, annotator=args.fill_annotator)


def add_store_option(parser: argparse.ArgumentParser | Any, *, shown: bool = True) -> None:
    """Add ``--store PATH``, the label store a command reads or writes (``shown=False``
    leaves it out of the help)."""
    parser.add_argument(
        "--store",
        type=Path,
        metavar="PATH",
        help=(
            "label store file (default: labels.sqlite in lmr-author's data folder)"
            if shown
            else argparse.SUPPRESS
        ),
    )
