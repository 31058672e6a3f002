"""The paper of a task: PDF -> paper.json (page number -> text), and a small PDF writer.

Agents read a task's paper from ``paper.json``: the published LMR-Bench tasks store
the PyMuPDF text of every page under its 1-based page number as a string key. This
module is the one place that makes that file, so the new-task app, the validator and
the sample-benchmark build all agree on it. `make_paper_pdf` exists so that sample
papers (and test fixtures) can be written as real PDFs with the same library.
"""

from __future__ import annotations

import html
import importlib
import io
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lmr_author.util.atomic import atomic_write_bytes, atomic_write_json
from lmr_author.util.errors import UserError
from lmr_author.util.json_input import load_json

#: A paragraph of a section body that starts with this marker is set as a display
#: equation (centred, italic).
EQUATION_MARKER = "$$"
#: A paragraph that starts with this marker is code: set as is, line by line.
CODE_MARKER = "```"

_PAGE_MARGIN = 72  # points: one inch on every side

_CSS = """
body { font-family: serif; font-size: 10.5pt; }
h1 { font-size: 16pt; text-align: center; margin-bottom: 4pt; }
h2 { font-size: 12pt; margin-top: 10pt; margin-bottom: 3pt; }
p { text-align: justify; margin-top: 2pt; margin-bottom: 4pt; }
p.authors { text-align: center; font-style: italic; }
p.abstract { margin-left: 24pt; margin-right: 24pt; font-size: 9.5pt; }
pre { font-family: monospace; font-size: 8.5pt; margin-top: 2pt; margin-bottom: 4pt; }
p.eq {
    text-align: center; font-style: italic; white-space: pre-wrap;
    margin-top: 4pt; margin-bottom: 6pt;
}
"""


def pdf_to_pages(pdf: Path) -> dict[str, str]:
    """The text of every page of ``pdf``, keyed by page number as a string from "1".

    Raises `UserError` when the file is missing, is not a PDF, or is encrypted.
    """
    path = Path(pdf)
    if not path.is_file():
        raise UserError(
            "no such PDF file", file=path, hint="Give the path of the paper's PDF file."
        )
    return _pages_of(path, shown=path)


def pdf_bytes_to_pages(data: bytes, *, shown: Path) -> dict[str, str]:
    """`pdf_to_pages` of a PDF held in memory; errors name ``shown``."""
    return _pages_of(data, shown=shown)


def _pages_of(source: Path | bytes, *, shown: Path) -> dict[str, str]:
    pymupdf = _pymupdf()
    try:
        if isinstance(source, bytes):
            doc = pymupdf.open(stream=source, filetype="pdf")
        else:
            doc = pymupdf.open(source, filetype="pdf")
    except Exception as error:  # PyMuPDF raises its own FileDataError and RuntimeError
        raise UserError(
            f"cannot read this file as a PDF ({error})",
            file=shown,
            hint="Check that it is a PDF file and not an HTML page or an archive.",
        ) from None
    with doc:
        if not doc.is_pdf:  # MuPDF opens HTML, XPS, EPUB, ... despite filetype="pdf"
            raise UserError(
                "cannot read this file as a PDF (it holds another document format)",
                file=shown,
                hint="Check that it is a PDF file and not an HTML page or an archive.",
            )
        if doc.needs_pass:
            raise UserError(
                "the PDF is password-protected",
                file=shown,
                hint="Save an unprotected copy of the paper and use that.",
            )
        # Ligatures are expanded ("fi", not U+FB01) so that agents can search the text.
        flags = pymupdf.TEXTFLAGS_TEXT & ~pymupdf.TEXT_PRESERVE_LIGATURES
        return {
            str(number): page.get_text("text", flags=flags)
            for number, page in enumerate(doc, start=1)
        }


def write_paper_json(pdf: Path, out: Path) -> dict[str, str]:
    """Extract the pages of ``pdf`` and write them to ``out`` as JSON, atomically.

    Returns the pages that were written.
    """
    pages = pdf_to_pages(pdf)
    atomic_write_json(out, pages)
    return pages


def load_paper_json(path: Path) -> dict[str, str]:
    """Read a paper.json file; raise `UserError` when it is not a page -> text object."""
    if not Path(path).exists():
        raise UserError(
            "no paper.json here",
            file=path,
            hint="Make it from the paper's PDF with 'lmr-author paper TASK_FOLDER'.",
        )
    data = load_json(Path(path), what="paper.json", hint="Regenerate it from the paper's PDF.")
    if not isinstance(data, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in data.items()
    ):
        raise UserError(
            "paper.json must map page numbers (strings) to page text (strings)",
            file=path,
            where="$",
            hint="Regenerate it from the paper's PDF.",
        )
    return data


def paper_html(
    title: str,
    sections: Sequence[tuple[str, str]],
    *,
    authors: str = "",
    abstract: str = "",
) -> str:
    """The HTML that `make_paper_pdf` lays out; exposed so previews can show it."""
    parts = [f"<h1>{html.escape(title)}</h1>"] if title else []
    if authors:
        parts.append(f'<p class="authors">{html.escape(authors)}</p>')
    if abstract:
        parts.append(f'<p class="abstract"><b>Abstract.</b> {html.escape(abstract)}</p>')
    for heading, body in sections:
        if heading:
            parts.append(f"<h2>{html.escape(heading)}</h2>")
        for paragraph in _paragraphs(body):
            if paragraph.startswith(CODE_MARKER):
                code = "\n".join(paragraph.splitlines()[1:]).removesuffix(CODE_MARKER)
                parts.append(f"<pre>{html.escape(code.rstrip())}</pre>")
            elif paragraph.startswith(EQUATION_MARKER):
                equation = paragraph[len(EQUATION_MARKER) :].strip()
                parts.append(f'<p class="eq">{html.escape(equation)}</p>')
            else:
                parts.append(f"<p>{html.escape(paragraph)}</p>")
    return "\n".join(parts)


def make_paper_pdf(
    title: str,
    sections: Sequence[tuple[str, str]],
    out: Path,
    *,
    authors: str = "",
    abstract: str = "",
) -> int:
    """Write a short paper as a PDF (US letter, flowing over as many pages as needed).

    ``sections`` are ``(heading, body)`` pairs; a body's paragraphs are separated by
    blank lines, and a paragraph starting with ``$$`` is a display equation. The bytes
    are deterministic (no dates, no random file id) so rebuilt papers diff cleanly.
    Returns the number of pages.
    """
    data, pages = paper_pdf_bytes(title, sections, authors=authors, abstract=abstract)
    atomic_write_bytes(out, data)
    return pages


def paper_pdf_bytes(
    title: str,
    sections: Sequence[tuple[str, str]],
    *,
    authors: str = "",
    abstract: str = "",
) -> tuple[bytes, int]:
    """The PDF `make_paper_pdf` writes, and its number of pages."""
    pymupdf = _pymupdf()
    story = pymupdf.Story(
        html=paper_html(title, sections, authors=authors, abstract=abstract), user_css=_CSS
    )
    buffer = io.BytesIO()
    writer = pymupdf.DocumentWriter(buffer)
    page_rect = pymupdf.paper_rect("letter")
    content_rect = pymupdf.Rect(page_rect) + pymupdf.Rect(
        _PAGE_MARGIN, _PAGE_MARGIN, -_PAGE_MARGIN, -_PAGE_MARGIN
    )
    more = 1
    while more:
        device = writer.begin_page(page_rect)
        more, _ = story.place(content_rect)
        story.draw(device)
        writer.end_page()
    writer.close()
    with pymupdf.open(stream=buffer.getvalue(), filetype="pdf") as doc:
        doc.set_metadata({"title": title, "author": authors, "creator": "lmr-author"})
        pages = int(doc.page_count)
        data = doc.tobytes(garbage=3, deflate=True, no_new_id=True)
    return data, pages


def _pymupdf() -> Any:
    """Import PyMuPDF lazily (it is slow to import) and untyped.

    Its annotations are partial, so under ``mypy --strict`` every call would be an
    "untyped call"; treating the module as ``Any`` keeps that noise out of this file.
    """
    return importlib.import_module("pymupdf")


def _paragraphs(body: str) -> list[str]:
    """Split on blank lines and join each paragraph's lines with single spaces (a code
    paragraph keeps its lines and their indentation)."""
    paragraphs: list[str] = []
    current: list[str] = []

    def close() -> None:
        if current and current[0].lstrip().startswith(CODE_MARKER):
            paragraphs.append("\n".join(line.replace("\u200b", "") for line in current))
        elif current:
            paragraphs.append(" ".join(line.strip() for line in current))
        current.clear()

    for line in body.splitlines():
        if line.strip():
            current.append(line)
        else:
            close()
    close()
    return paragraphs
