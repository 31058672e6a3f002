"""The paper's title and year, guessed from its PDF for the draft.

The PDF's own metadata comes first (publishers and LaTeX's hyperref fill it in); when
it is empty or a placeholder, the title is the largest-font text at the top of page 1,
over as many lines as it spans (PyMuPDF ``get_text("dict")`` gives font sizes).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

#: Metadata titles that are no title (word processors and converters put these).
_PLACEHOLDER = re.compile(
    r"^(untitled|microsoft word|document\d*|paper|title|.*\.(pdf|docx?|tex))", re.I
)
_YEAR = re.compile(r"(19|20)\d\d")


def _open(pdf: Path) -> Any:
    from lmr_author.authoring.paper_pdf import _pymupdf

    return _pymupdf().open(pdf)


def guess_paper_title(pdf: Path) -> str:
    """The title: PDF metadata, else the largest-font lines at the top of page 1.

    Never longer than a title (`clean_title`): no authors, no abstract.
    """
    from lmr_author.authoring.paper_document import clean_title

    return clean_title(_guess(pdf))


def _guess(pdf: Path) -> str:
    with _open(pdf) as doc:
        meta = (doc.metadata or {}).get("title", "") or ""
        meta = " ".join(meta.split())
        if len(meta) >= 4 and not _PLACEHOLDER.match(meta):
            return meta
        if doc.page_count == 0:
            return ""
        return _largest_font_title(doc[0].get_text("dict"))


def _largest_font_title(page: dict[str, Any]) -> str:
    lines: list[tuple[float, float, str]] = []  # (size, top, text)
    for block in page.get("blocks", []):
        for line in block.get("lines", []):
            spans = [s for s in line.get("spans", []) if s.get("text", "").strip()]
            if not spans:
                continue
            size = max(float(s.get("size", 0)) for s in spans)
            text = " ".join(s["text"].strip() for s in spans)
            lines.append((round(size, 1), float(line["bbox"][1]), text))
    if not lines:
        return ""
    # Only the upper half of the page can hold the title (not a big figure label below).
    height = max(top for _, top, _ in lines) or 1.0
    upper = [entry for entry in lines if entry[1] <= height * 0.5] or lines
    biggest = max(size for size, _, _ in upper)
    title_lines = sorted((top, text) for size, top, text in upper if size >= biggest - 0.5)
    # A size most of the page shares is body text, not a title: keep its first line only.
    if len(title_lines) > 4:
        return title_lines[0][1]
    # Consecutive lines only: the first run of title-sized lines.
    kept = [title_lines[0]]
    for top, text in title_lines[1:]:
        if top - kept[-1][0] > biggest * 2.5:
            break
        kept.append((top, text))
    return " ".join(" ".join(text for _, text in kept).split())


def paper_year(pdf: Path) -> int | None:
    """The year of the PDF's creation date (metadata), or None."""
    with _open(pdf) as doc:
        meta = doc.metadata or {}
    for key in ("creationDate", "modDate"):
        match = _YEAR.search(str(meta.get(key) or ""))
        if match:
            return int(match.group(0))
    return None
