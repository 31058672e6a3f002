"""A paper read from its source (LaTeX, Markdown): title, authors, abstract, sections.

Papers given as source become a PDF laid out by `lmr_author.authoring.paper_pdf.paper_pdf_bytes` and
paper.json is that PDF's text, page by page: the same structure as a paper given as a
PDF, so the judge, the generator and the goal suggestions read every paper alike. The
title is the paper's title alone (`clean_title`), never its authors or abstract.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

#: Longer than any real title: past it a guess took in authors or the abstract.
MAX_TITLE = 200
_ABSTRACT_WORD = re.compile(r"\babstract\b[\s.:—–-]*", re.I)


@dataclass(frozen=True)
class PaperDocument:
    """The parts of a paper that its PDF and paper.json are made from."""

    title: str
    authors: str = ""
    abstract: str = ""
    sections: list[tuple[str, str]] = field(default_factory=list)

    def pdf(self) -> bytes:
        """The paper laid out as a PDF (deterministic bytes)."""
        from lmr_author.authoring.paper_pdf import paper_pdf_bytes

        data, _ = paper_pdf_bytes(
            self.title, self.sections, authors=self.authors, abstract=self.abstract
        )
        return data


def clean_title(text: str) -> str:
    """One line, without a trailing "Abstract ..." and cut at a word under `MAX_TITLE`."""
    title = " ".join(text.split())
    match = _ABSTRACT_WORD.search(title)
    if match is not None and match.start() > 0:
        title = title[: match.start()].rstrip()
    if len(title) > MAX_TITLE:
        title = title[:MAX_TITLE].rsplit(" ", 1)[0].rstrip(" ,;:") + "…"
    return title


#: A line that is no longer the title: an e-mail, an affiliation, "Abstract", a date,
#: footnote marks or a list of names.
_NOT_TITLE = re.compile(
    r"@|\b(universit\w*|institut\w*|laborator\w*|department|school|college|inc\.|"
    r"corporation|research|abstract|arxiv|preprint|proceedings|conference)\b|\d{4}",
    re.I,
)
_NAME = re.compile(r"^([A-Z][\w'’.-]*|van|von|de|der|da|di|du|le|la)$")
_TITLE_WORDS = frozenset(
    {
        "a",
        "an",
        "the",
        "of",
        "for",
        "with",
        "in",
        "on",
        "to",
        "from",
        "via",
        "by",
        "at",
        "as",
        "is",
        "are",
        "and",
        "or",
        "not",
        "without",
        "towards",
        "between",
        "through",
        "beyond",
        "under",
    }
)


def _looks_like_names(line: str) -> bool:
    """ "Yu Hou", "Hal Daumé III", "A. Smith, B. Jones and C. Lee": two to four
    capitalized words per person, none of them a word titles are made of."""
    people = [p for p in re.split(r",|\band\b|&|\d+|[^\w\s.'’-]+", line) if p.strip()]
    for person in people:
        words = person.split()
        if not 2 <= len(words) <= 4 or any(w.lower() in _TITLE_WORDS for w in words):
            return False
        # A name has lower-case letters ("Hou") or is an initial ("A."), never all capitals
        # (a title set in capitals goes on: "GENERATION WITH" / "BERT").
        if not all(_NAME.match(w) and (w != w.upper() or w.endswith(".")) for w in words):
            return False
    return bool(people)


def title_from_text(text: str) -> str:
    """The title at the top of a page's text (paper.json's page 1): the first lines up to
    the authors, an affiliation or the abstract."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    kept: list[str] = []
    for line in lines[:8]:
        ends_open = bool(kept) and (
            kept[-1].split()[-1].lower() in _TITLE_WORDS or kept[-1].endswith((":", "-"))
        )
        if kept and not ends_open and (_NOT_TITLE.search(line) or _looks_like_names(line)):
            break
        if not kept and (_NOT_TITLE.search(line) or not re.search(r"[^\W\d_]{2}", line)):
            continue  # a running header ("Published at ICLR 2025") or a page number
        kept.append(line)
        if sum(len(k) for k in kept) > MAX_TITLE:
            break
    return clean_title(" ".join(kept))
