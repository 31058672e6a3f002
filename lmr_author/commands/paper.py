"""`lmr-author paper`: a task's paper.json from its PDF, in the published shape."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from lmr_author.errors import EXIT_OK, UserError

DESCRIPTION = """\
Extract the text of a paper's PDF, page by page, into paper.json: a JSON object from
page number ("1", "2", ...) to that page's text, as the published LMR-Bench tasks carry
it and as 'lmr-author generate' reads it. Given a task folder, reads its paper.pdf and
writes its paper.json.
"""


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    parser = subparsers.add_parser(
        "paper",
        help="write paper.json (page -> text) from a paper's PDF",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("pdf", type=Path, metavar="PDF", help="the paper's PDF, or a task folder")
    parser.add_argument(
        "--out",
        "-o",
        type=Path,
        metavar="FILE",
        help="where to write (default: paper.json beside the PDF)",
    )
    parser.add_argument("--force", action="store_true", help="replace an existing paper.json")
    parser.set_defaults(handler=_paper)


def _paper(args: argparse.Namespace) -> int:
    from lmr_author.paper import write_paper_json

    pdf: Path = args.pdf
    if pdf.is_dir():
        pdf = pdf / "paper.pdf"
    if not pdf.is_file():
        raise UserError(
            "no such PDF", file=pdf, hint="Give the paper's PDF or a task folder holding paper.pdf."
        )
    out: Path = args.out or pdf.with_name("paper.json")
    if out.exists() and not args.force:
        raise UserError("paper.json exists already", file=out, hint="Add --force to replace it.")
    pages = write_paper_json(pdf, out)
    print(f"wrote {out} ({len(pages)} pages)")
    return EXIT_OK
