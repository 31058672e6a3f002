"""A task's paper from any form it comes in: PDF, LaTeX source, Markdown or paper.json.

Every form ends as the same two files in the task's repository folder: ``paper.pdf``
(what agents open) and ``paper.json`` (page number -> text, what the judge, the
generator and the goal suggestions read). A PDF is copied and its pages extracted; a
LaTeX or Markdown source is laid out as a PDF first, so its paper.json has pages like
any other; a published paper.json is kept as it is, with the paper.pdf found beside it
or one laid out from its text. Every error names the file the user gave.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from lmr_author.authoring.paper_document import PaperDocument, clean_title, title_from_text
from lmr_author.domain.task import INFO_FILE, PAPER_JSON, PAPER_PDF
from lmr_author.util.atomic import atomic_write_bytes, atomic_write_json
from lmr_author.util.errors import UserError

#: What the paper may be given as, for messages and help texts.
PAPER_FORMS = "a PDF, LaTeX (a .tex file, or the source folder or tarball), Markdown or paper.json"


@dataclass(frozen=True)
class LoadedPaper:
    """A paper read from what the user gave, ready to be written into a task."""

    source: Path
    form: str  # "PDF", "LaTeX", "Markdown" or "paper.json"
    pages: dict[str, str]
    title: str
    pdf: bytes
    year: int | None = None


def read_paper(path: str | Path) -> LoadedPaper:
    """Read the paper at ``path`` in whichever form it is; `UserError` names ``path``."""
    from lmr_author.authoring.paper_latex import is_latex, read_latex
    from lmr_author.authoring.paper_markdown import is_markdown, read_markdown

    source = Path(path).expanduser()
    if not source.exists():
        raise UserError(
            "no such file or folder", file=path, hint=f"Give the paper as {PAPER_FORMS}."
        )
    if source.is_dir():
        return _read_folder(source)
    if source.suffix.lower() == ".json":
        return _read_paper_json(source)
    if is_markdown(source):
        return _from_document(source, "Markdown", read_markdown(source))
    if is_latex(source):
        return _from_document(source, "LaTeX", read_latex(source))
    if source.suffix.lower() == ".pdf" or _starts_like_pdf(source):
        return _read_pdf(source)
    raise UserError(
        f"cannot tell which form of paper this is (suffix '{source.suffix or 'none'}')",
        file=path,
        hint=f"Give the paper as {PAPER_FORMS}.",
    )


def paper_year(path: str | Path) -> int | None:
    """The paper's year when it says one, read cheaply (no layout, no full read): a PDF's
    metadata, a published paper.json's info.json. Called as fields are typed."""
    from lmr_author.authoring.paper_title import paper_year as pdf_year

    source = Path(path).expanduser()
    try:
        if source.is_dir():
            for name in (PAPER_PDF, PAPER_JSON):
                if (source / name).is_file():
                    return paper_year(source / name)
            return None
        if source.suffix.lower() == ".json":
            year = _published_info(source).get("year")
            if isinstance(year, int) and not isinstance(year, bool):
                return year
            beside = source.with_name(PAPER_PDF)
            return pdf_year(beside) if beside.is_file() else None
        if source.suffix.lower() == ".pdf" or _starts_like_pdf(source):
            return pdf_year(source)
    except Exception:  # a broken file has no year here; reading it says what is wrong
        return None
    return None


def write_paper(paper: LoadedPaper, repo_dir: Path) -> None:
    """Write ``paper.pdf`` and ``paper.json`` into the task's repository folder."""
    atomic_write_bytes(repo_dir / PAPER_PDF, paper.pdf)
    atomic_write_json(repo_dir / PAPER_JSON, paper.pages)


def _from_document(source: Path, form: str, document: PaperDocument) -> LoadedPaper:
    from lmr_author.authoring.paper_pdf import pdf_bytes_to_pages

    pdf = document.pdf()
    return LoadedPaper(
        source=source,
        form=form,
        pages=pdf_bytes_to_pages(pdf, shown=source),
        title=document.title,
        pdf=pdf,
    )


def _read_pdf(source: Path) -> LoadedPaper:
    from lmr_author.authoring.paper_pdf import pdf_to_pages
    from lmr_author.authoring.paper_title import guess_paper_title, paper_year

    pages = pdf_to_pages(source)  # refuses what is no PDF, naming the file
    title = guess_paper_title(source) or title_from_text(pages.get("1", ""))
    return LoadedPaper(
        source=source,
        form="PDF",
        pages=pages,
        title=clean_title(title),
        pdf=source.read_bytes(),
        year=paper_year(source),
    )


def _read_paper_json(source: Path) -> LoadedPaper:
    from lmr_author.authoring.paper_pdf import load_paper_json

    pages = load_paper_json(source)
    if not pages:
        raise UserError("this paper.json has no pages", file=source, hint="Give the paper itself.")
    published = _published_info(source)
    beside = source.with_name(PAPER_PDF)
    if beside.is_file():
        pdf_paper = _read_pdf(beside)
        pdf, title, year = pdf_paper.pdf, pdf_paper.title, pdf_paper.year
    else:
        ordered = [text for _, text in sorted(pages.items(), key=_page_order)]
        pdf = PaperDocument(title="", sections=[("", text) for text in ordered]).pdf()
        title, year = title_from_text(ordered[0]), None
    title = str(published.get("paper_name") or title)
    year_value = published.get("year")
    if isinstance(year_value, int) and not isinstance(year_value, bool):
        year = year_value
    return LoadedPaper(
        source=source, form="paper.json", pages=pages, title=clean_title(title), pdf=pdf, year=year
    )


def _page_order(item: tuple[str, str]) -> tuple[int, str]:
    key = item[0]
    return (int(key), key) if key.isdigit() else (1 << 30, key)


def _published_info(paper_json: Path) -> dict[str, object]:
    """The info.json of the published task this paper.json belongs to, if it is one."""
    for folder in (paper_json.parent.parent, paper_json.parent):
        info = folder / INFO_FILE
        if info.is_file():
            try:
                data = json.loads(info.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                return {}
            return data if isinstance(data, dict) else {}
    return {}


def _read_folder(folder: Path) -> LoadedPaper:
    from lmr_author.authoring.paper_latex import is_latex, read_latex

    if is_latex(folder):
        return _from_document(folder, "LaTeX", read_latex(folder))
    for name in (PAPER_PDF, PAPER_JSON):  # the PDF is the original when both are there
        if (folder / name).is_file():
            return read_paper(folder / name)
    markdown = sorted(folder.glob("*.md"))
    if len(markdown) == 1:
        return read_paper(markdown[0])
    raise UserError(
        "this folder holds no paper (no .tex source, paper.pdf, paper.json or single .md file)",
        file=folder,
        hint=f"Give the paper as {PAPER_FORMS}.",
    )


def _starts_like_pdf(path: Path) -> bool:
    try:
        with path.open("rb") as handle:
            return handle.read(5) == b"%PDF-"
    except OSError:
        return False
