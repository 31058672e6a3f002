"""The paper's text as a solver reads it: paper.json's pages, or paper.pdf's without it."""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from lmr_author.domain.task import PAPER_JSON, PAPER_PDF
from lmr_author.leaks.regular_files import read_regular
from lmr_author.util.errors import UserError
from lmr_author.util.json_input import parse_json

#: Papers larger than this are not read for code (a paper, not a data set).
MAX_PAPER_BYTES = 64 * 1024 * 1024


def paper_pages(root: Path) -> tuple[str, dict[int, str]] | None:
    """(file name, page number -> text) of the paper in ``root``, or None."""
    pages = _json_pages(root / PAPER_JSON)
    if pages is not None:
        return PAPER_JSON, pages
    pages = _pdf_pages(root / PAPER_PDF)
    if pages is not None:
        return PAPER_PDF, pages
    return None


def _json_pages(path: Path) -> dict[int, str] | None:
    data = read_regular(path, MAX_PAPER_BYTES)
    if data is None:
        return None
    try:
        document = parse_json(data.decode("utf-8", "replace"), what=PAPER_JSON)
    except (UserError, ValueError, RecursionError):
        return None
    if not isinstance(document, dict):
        return None
    pages = {}
    for key, value in document.items():
        if isinstance(value, str) and str(key).isdigit():
            pages[int(key)] = value
    return pages


def _pdf_pages(path: Path) -> dict[int, str] | None:
    data = read_regular(path, MAX_PAPER_BYTES)
    if data is None:
        return None
    try:
        pymupdf: Any = importlib.import_module("pymupdf")  # untyped: Any keeps mypy quiet
        with pymupdf.open(stream=data, filetype="pdf") as document:
            return {number: page.get_text() for number, page in enumerate(document, start=1)}
    except Exception:  # PyMuPDF raises its own kinds for a damaged PDF: no text, no copy
        return None
