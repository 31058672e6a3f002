"""Where a repository keeps its own paper, found by what a file holds, whatever its name.

Research repositories ship their paper beside the code more often than not, and under
any name: ``paper.pdf``, ``paper/main.tex``, ``paper2code_paper.md``,
``manuscript/draft_v3.pdf``. A file is taken for the paper by its content:

* LaTeX: a document (``\\documentclass`` and ``\\begin{document}``; a flattened source
  without its ``\\documentclass`` line when it has a title or an abstract and sections),
  not slides, a poster or a letter;
* Markdown: a title and the sections a paper has (Abstract, Introduction, Method,
  References...), more of them than a README's (Installation, Usage...); markdown-it
  reads the headings, so a ``#`` in a code block is no heading;
* PDF: an abstract on its first pages (PyMuPDF reads them; figures and slides have none);
* a published task's ``paper.json`` (page number -> text).

Only the top folder, folders named for a paper or its write-up (``paper/``, ``docs/``,
``latex/``, any folder whose name says "paper"...) and their direct subfolders are looked
at: a repository may be huge, and a .tex deep in a vendored package is not its paper.
Every candidate is ranked (the form, how much of a paper it holds, its name and place);
the app loads the best and lets the annotator pick another.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

#: Folders that hold a paper's source, its PDF or its write-up (and folders whose name
#: holds "paper").
_PAPER_FOLDERS = frozenset(
    {"paper", "papers", "latex", "tex", "manuscript", "arxiv", "writeup", "docs", "doc", "pdf"}
)
#: Folders named for the paper itself: a lone readable PDF or Markdown file there is it.
_NAMED_FOR_IT = frozenset({"paper", "papers", "manuscript", "writeup", "arxiv"})
_SUFFIXES = {".tex": "LaTeX", ".md": "Markdown", ".markdown": "Markdown", ".pdf": "PDF"}
_HEAD_BYTES = 200_000  # a paper says what it is near its top
_MAX_FILES = 400  # looked at in all: a docs/ folder of a thousand pages is not read whole
_MAX_PDFS = 24  # PDFs opened (each costs a few milliseconds to a second)
_MAX_PDF_BYTES = 200_000_000
_PDF_PAGES_READ = 2  # the abstract is on page 1, after a long author list on page 2

#: Document classes that are no paper.
_NOT_PAPER_CLASSES = re.compile(
    r"\\documentclass\s*(?:\[[^\]]*\])?\s*\{\s*(beamer\w*|\w*poster\w*|letter|standalone|"
    r"moderncv|memoir-letter)\s*\}",
    re.I,
)
_DOCUMENTCLASS = re.compile(r"^[^%\n]*\\documentclass", re.M)
_LATEX_SECTION = re.compile(r"^[^%\n]*\\(?:section\*?\s*\{|input\s*\{|include\s*\{)", re.M)
_LATEX_ABSTRACT = re.compile(r"\\begin\{abstract\}|\\abstract\s*\{", re.I)
_LATEX_TITLE = re.compile(r"\\title\s*[\[{]")
#: Words of names that say "this is the paper" or "this is something else".
_PAPER_NAMES = re.compile(r"(^|[^a-z])(paper|main|manuscript|arxiv|ms|article)([^a-z]|$)")
_OTHER_NAMES = re.compile(
    r"(^|[^a-z])(rebuttal|response|reply|cover|letter|poster|slides?|talk|readme|changelog|"
    r"license|contributing|todo|notes?)([^a-z]|$)"
)
#: Section headings of a paper, and of a README, once numbering and case are gone.
_PAPER_HEADINGS = frozenset(
    {
        "abstract", "introduction", "related work", "background", "preliminaries",
        "method", "methods", "methodology", "approach", "model", "experiments",
        "experiment", "experimental setup", "results", "evaluation", "discussion",
        "conclusion", "conclusions", "limitations", "references", "bibliography",
        "appendix", "acknowledgment", "acknowledgments", "acknowledgement",
        "acknowledgements", "analysis",
    }
)  # fmt: skip
_README_HEADINGS = frozenset(
    {
        "installation", "install", "usage", "requirements", "setup", "getting started",
        "quick start", "quickstart", "license", "contributing", "citation", "cite",
        "how to cite", "dependencies", "features", "news", "todo", "demo", "examples",
        "contact", "faq", "documentation",
    }
)  # fmt: skip
_HEADING_NUMBER = re.compile(r"^\s*(?:[0-9]+(?:\.[0-9]+)*\.?|[ivxIVX]+\.|[A-Z]\.)\s+")
_BOLD_ABSTRACT = re.compile(r"^\s*(\*\*|__)?\s*abstract\b", re.I | re.M)
_PDF_ABSTRACT = re.compile(r"\babstract\b", re.I)


@dataclass(frozen=True)
class PaperCandidate:
    """A file of the repository that holds a paper, with why we think so."""

    path: Path
    form: str  # "LaTeX", "Markdown", "PDF" or "paper.json"
    evidence: str  # e.g. "title and 9 sections (Abstract, Introduction, ...)"
    score: float

    def describe(self, repo: Path) -> str:
        """One line: where it is, its form and why it is taken for a paper."""
        try:
            shown = self.path.relative_to(repo).as_posix()
        except ValueError:
            shown = str(self.path)
        return f"{shown} ({self.form}: {self.evidence})"


#: Where the app looks, said when it finds nothing.
WHERE_LOOKED = (
    "the top of the repository and its paper/, docs/, latex/, manuscript/ folders "
    "(LaTeX with \\documentclass, Markdown with a title and a paper's sections, a PDF "
    "with an abstract, paper.json)"
)


def find_papers(repo: Path) -> list[PaperCandidate]:
    """Every file of ``repo`` that holds a paper, best first (empty when none)."""
    found: list[PaperCandidate] = []
    budget = _Budget()
    for folder in _places(repo):
        for path in _files(folder, budget):
            candidate = _candidate(path, repo, folder, budget)
            if candidate is not None:
                found.append(candidate)
    found.sort(key=lambda c: (-c.score, len(c.path.parts), c.path.as_posix()))
    return found


def find_paper(repo: Path) -> Path | None:
    """The repository's own paper: the best candidate of `find_papers`, or None."""
    found = find_papers(repo)
    return found[0].path if found else None


class _Budget:
    """How many more files may be read, and PDFs opened."""

    def __init__(self) -> None:
        self.files = _MAX_FILES
        self.pdfs = _MAX_PDFS


def _places(repo: Path) -> Iterator[Path]:
    """The top folder, then the folders named for a paper and their direct subfolders."""
    yield repo
    for child in _children(repo):
        name = child.name.lower()
        if not child.is_dir() or child.is_symlink() or name.startswith("."):
            continue
        if name in _PAPER_FOLDERS or "paper" in name:
            yield child
            for sub in _children(child):
                if sub.is_dir() and not sub.is_symlink() and not sub.name.startswith("."):
                    yield sub


def _children(folder: Path) -> list[Path]:
    try:
        return sorted(folder.iterdir())
    except OSError:
        return []


def _files(folder: Path, budget: _Budget) -> Iterator[Path]:
    for path in _children(folder):
        if budget.files <= 0:
            return
        suffix = path.suffix.lower()
        if suffix not in _SUFFIXES and path.name.lower() != "paper.json":
            continue
        if path.is_symlink() or not path.is_file():
            continue  # a link may lead out of the repository
        budget.files -= 1
        yield path


def _candidate(path: Path, repo: Path, folder: Path, budget: _Budget) -> PaperCandidate | None:
    form = "paper.json" if path.name.lower() == "paper.json" else _SUFFIXES[path.suffix.lower()]
    named_for_it = folder != repo and folder.name.lower() in _NAMED_FOR_IT
    if form == "paper.json":
        judged = _judge_paper_json(path)
    elif form == "LaTeX":
        judged = _judge_latex(path)
    elif form == "Markdown":
        judged = _judge_markdown(path, lenient=named_for_it)
    else:
        if budget.pdfs <= 0:
            return None
        budget.pdfs -= 1
        judged = _judge_pdf(path, lenient=named_for_it)
    if judged is None:
        return None
    strength, evidence = judged
    return PaperCandidate(path, form, evidence, strength + _place_score(path, repo))


def _place_score(path: Path, repo: Path) -> float:
    """A name that says "paper" and a place near the top count; a README's name does not."""
    stem = path.stem.lower()
    score = 0.0
    if _PAPER_NAMES.search(stem):
        score += 1.0
    if _OTHER_NAMES.search(stem):
        score -= 2.0
    try:
        depth = len(path.relative_to(repo).parts) - 1
    except ValueError:
        depth = 2
    return score + (0.5 if depth == 0 else -0.25 * depth)


def _head(path: Path) -> str:
    try:
        with path.open("rb") as handle:
            return handle.read(_HEAD_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return ""


def _judge_paper_json(path: Path) -> tuple[float, str] | None:
    """A published task's paper.json: an object of page texts."""
    try:
        with path.open("rb") as handle:
            data = json.loads(handle.read(50_000_000))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or not data:
        return None
    if not all(isinstance(text, str) for text in data.values()):
        return None
    return 4.0, f"{len(data)} page(s) of text"


def _judge_latex(path: Path) -> tuple[float, str] | None:
    head = _head(path)
    if "\\begin{document}" not in head or _NOT_PAPER_CLASSES.search(head):
        return None
    sections = len(_LATEX_SECTION.findall(head))
    abstract = bool(_LATEX_ABSTRACT.search(head))
    title = bool(_LATEX_TITLE.search(head))
    documentclass = bool(_DOCUMENTCLASS.search(head))
    # A flattened source (its preamble pasted in, the \documentclass line dropped) is a
    # paper still when it has a paper's title or abstract and sections.
    if not documentclass and not ((title or abstract) and sections):
        return None
    score = 3.0 + min(sections, 8) / 8 + (1.0 if abstract else 0.0)
    score += 0.5 if title else 0.0
    said = ["\\documentclass" if documentclass else "\\begin{document}"]
    if abstract:
        said.append("an abstract")
    if sections:
        said.append(f"{sections} section(s) or input(s)")
    return score, ", ".join(said)


def _judge_markdown(path: Path, *, lenient: bool) -> tuple[float, str] | None:
    from markdown_it import MarkdownIt

    text = _head(path)
    try:
        tokens = MarkdownIt("commonmark").parse(text)
    except Exception:  # markdown-it never fails on text; a bug there is no paper here
        return None
    headings = [
        tokens[index + 1].content
        for index, token in enumerate(tokens[:-1])
        if token.type == "heading_open"
    ]
    if not headings:
        return None
    sections = [_heading_words(heading) for heading in headings[1:]]
    paper = [s for s in sections if s in _PAPER_HEADINGS]
    readme = [s for s in sections if s in _README_HEADINGS]
    abstract = "abstract" in paper or bool(_BOLD_ABSTRACT.search(text))
    is_paper = (len(paper) >= 2 and len(paper) > len(readme)) or (
        abstract and len(sections) >= 2 and len(readme) <= len(paper)
    )
    if not is_paper and not (lenient and not readme):
        return None
    # A conversion (of the PDF or the LaTeX beside it, as a rule): after them.
    score = 2.0 + min(len(paper), 6) / 12 + (1.0 if abstract else 0.0)
    named = ", ".join(dict.fromkeys(s.capitalize() for s in paper[:4]))
    evidence = f"a title and {len(sections)} section(s)" + (f" ({named}…)" if named else "")
    return score, evidence


def _heading_words(heading: str) -> str:
    """ "## 2 RELATED WORK " -> "related work"; "**Abstract**" -> "abstract"."""
    text = re.sub(r"[*_`#]", "", heading)
    text = _HEADING_NUMBER.sub("", text)
    return " ".join(re.sub(r"[^\w\s]", " ", text).lower().split())


def _judge_pdf(path: Path, *, lenient: bool) -> tuple[float, str] | None:
    from lmr_author.authoring.paper_pdf import _pymupdf

    try:
        if path.stat().st_size > _MAX_PDF_BYTES:
            return None
        with _pymupdf().open(path) as document:
            pages = int(document.page_count)
            text = " ".join(
                document[number].get_text() for number in range(min(pages, _PDF_PAGES_READ))
            )
    except Exception:  # PyMuPDF raises its own errors for a broken file: not a paper
        return None
    if pages == 0 or not text.strip():
        return None
    abstract = bool(_PDF_ABSTRACT.search(text))
    if not abstract and not (lenient and pages >= 2):
        return None
    # The paper as published: before its source and its conversions.
    score = 3.5 + (1.0 if abstract else 0.0) + (0.5 if pages >= 4 else 0.0)
    return score, f"{pages} page(s)" + (", an abstract on its first pages" if abstract else "")
