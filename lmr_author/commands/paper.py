"""`lmr-author paper`: a task's paper.json (and paper.pdf) from the paper in any form."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from lmr_author.util.errors import EXIT_OK, UserError

DESCRIPTION = """\
Turn a paper into paper.json: a JSON object from page number ("1", "2", ...) to that
page's text, as the published LMR-Bench tasks carry it and as 'lmr-author generate',
the judge and the goal suggestions read it. The paper may be a PDF, LaTeX (a .tex
file, or the source folder or tarball; \\input files are followed), Markdown or an
existing paper.json. A LaTeX or Markdown paper is laid out as a PDF first, so that its
pages are pages like a PDF's.

  lmr-author paper TASK_FOLDER PAPER   give a task its paper (paper.pdf + paper.json)
  lmr-author paper TASK_FOLDER         paper.json from the task's paper.pdf
  lmr-author paper PAPER [-o FILE]     paper.json beside PAPER (or FILE)
"""


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    parser = subparsers.add_parser(
        "paper",
        help="write paper.json (page -> text) from a paper: PDF, LaTeX, Markdown or paper.json",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "target", type=Path, metavar="TASK_OR_PAPER", help="a task folder, or the paper itself"
    )
    parser.add_argument(
        "paper",
        type=Path,
        nargs="?",
        metavar="PAPER",
        help="the paper to give the task (PDF, .tex, LaTeX folder or tarball, .md, paper.json)",
    )
    parser.add_argument(
        "--out",
        "-o",
        type=Path,
        metavar="FILE",
        help="where to write paper.json (default: beside the paper)",
    )
    parser.add_argument("--force", action="store_true", help="replace an existing paper")
    parser.set_defaults(handler=_paper)


def _paper(args: argparse.Namespace) -> int:
    from lmr_author.authoring.paper_forms import read_paper, write_paper
    from lmr_author.domain.task import INFO_FILE, PAPER_JSON, PAPER_PDF, load_task
    from lmr_author.util.atomic import atomic_write_json

    target: Path = args.target
    if target.is_dir() and (target / INFO_FILE).is_file():
        task = load_task(target)
        repo = task.path / task.repo_folder_name
        source: Path = args.paper or repo / PAPER_PDF
        if args.paper is None and not source.is_file():
            raise UserError(
                "the task has no paper.pdf",
                file=source,
                hint="Give the paper: 'lmr-author paper TASK_FOLDER PAPER'.",
            )
        paper = read_paper(source)
        if args.paper is not None:
            existing = [repo / name for name in (PAPER_PDF, PAPER_JSON) if (repo / name).exists()]
            if existing and not args.force:
                raise UserError(
                    "the task has a paper already",
                    file=existing[0],
                    hint="Add --force to replace it.",
                )
            write_paper(paper, repo)
            print(
                f"wrote {repo / PAPER_PDF} and {repo / PAPER_JSON} ({paper.form}, "
                f"{len(paper.pages)} pages): {paper.title}"
            )
            return EXIT_OK
        out = args.out or repo / PAPER_JSON
    else:
        if args.paper is not None:
            raise UserError(
                "not a task folder (no info.json)",
                file=target,
                hint="Give a task folder and a paper, or the paper alone.",
            )
        paper = read_paper(target)
        base = target if target.is_dir() else target.parent
        out = args.out or base / PAPER_JSON
    if out.exists() and not args.force:
        raise UserError("paper.json exists already", file=out, hint="Add --force to replace it.")
    atomic_write_json(out, paper.pages)
    print(f"wrote {out} ({paper.form}, {len(paper.pages)} pages)")
    return EXIT_OK
