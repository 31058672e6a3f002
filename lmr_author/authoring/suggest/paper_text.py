"""The paper as the ranking sees it: passages under their section, and the words and names
it uses most where it describes its method.

Papers come as paper.json (PyMuPDF text per page, as the published tasks ship it), a
PDF, LaTeX (a file or a folder of .tex files) or Markdown. Headings are found in each
form ("3 Method" or "3" then "Method" on the next line in PDF text, ``\\section{...}``,
``# ...``); numbered PDF headings must follow in order, which keeps axis ticks and page
numbers out. Passages of method sections, equations and algorithm boxes weigh more;
related work, experiments and the references weigh less or nothing.
"""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from lmr_author.authoring.suggest.conventions import COMMON_NAMES, NOT_NAMES, PROSE
from lmr_author.authoring.suggest.quantities import (
    acronym_aliases,
    defined_quantities,
    symbol_aliases,
)
from lmr_author.authoring.suggest.words import stem, words
from lmr_author.util.errors import UserError

_NUMBERED = re.compile(r"^\s*(\d{1,2}|[A-H])((?:\.\d{1,2}){0,2})\.?(?:\s+(.*\S))?\s*$")
_NAMED = re.compile(
    r"^\s*(abstract|introduction|related work|background|preliminaries|method|methods|"
    r"methodology|approach|experiments?|results|discussion|conclusions?|limitations|"
    r"references|bibliography|acknowledge?ments?|appendix|appendices|"
    r"supplementary material)\s*$",
    re.I,
)
_LATEX_HEADING = re.compile(
    r"\\(?:sub)*section\*?\s*(?:\[[^\]]*\])?\s*\{([^{}]*(?:\{[^{}]*\}[^{}]*)*)\}"
)
_MARKDOWN_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*\S)\s*$")
_METHOD = re.compile(
    r"method|approach|algorithm|objective|loss|model|propos|our |formulation|framework|"
    r"architecture|training|learning|optimi[sz]|estimat|score|metric|decoding|search|"
    r"attention|layer|implementation|analy",
    re.I,
)
_LESSER = re.compile(
    r"related|introduction|conclusion|limitation|discussion|acknowledg|ethic|impact|"
    r"experiment|result|evaluation setup|dataset|baseline",
    re.I,
)
_REFERENCES = re.compile(r"references|bibliography", re.I)
_APPENDIX = re.compile(r"appendix|appendices|supplementary", re.I)
_EQUATION = re.compile(
    r"\(\d{1,2}\)\s*$|[=∑∏√∇]|\\frac|\\sum|\\log|\\exp|argmax|argmin|\\begin\{(equation|align)",
    re.MULTILINE,
)
_ALGORITHM = re.compile(r"^\s*(algorithm\s*\d|\\begin\{algorithm)", re.I | re.MULTILINE)
_NAME_TOKEN = re.compile(r"\b([A-Za-z]*[a-z][A-Z][A-Za-z]*|[A-Z][A-Z0-9]{2,}[a-z]?)\b")
_VENUE = re.compile(
    r"proceedings|conference|workshop|journal|pages|volume|©|copyright|arxiv|preprint|"
    r"published|under review|\d{4}",
    re.I,
)
_PLAIN_WORD = re.compile(r"[A-Za-z]+")
# A capitalised word after a lower-case word or a comma: not a sentence's first word.
_PROPER_NOUN = re.compile(r"(?<=[a-z,;] )([A-Z][a-z]{2,})\b")
_HYPHEN_BREAK = re.compile(r"(\w)-\n(\w)")
_LATEX_COMMENT = re.compile(r"(?<!\\)%.*")
_LATEX_DROP = re.compile(
    r"\\(cite[pt]?|citet|citep|ref|eqref|autoref|cref|Cref|label|url|href|footnote|"
    r"includegraphics|input|include|begin|end|usepackage|documentclass)\*?"
    r"(\[[^\]]*\])?\{[^}]*\}"
)
# \beta is the paper's beta; \frac, \mathcal and the rest are typesetting.
_LATEX_GREEK = re.compile(
    r"\\(?:var)?(alpha|beta|gamma|delta|epsilon|zeta|eta|theta|iota|kappa|lambda|mu|nu|"
    r"xi|pi|rho|sigma|tau|upsilon|phi|chi|psi|omega)(?![A-Za-z])",
    re.I,
)
_LATEX_COMMAND = re.compile(r"\\[A-Za-z]+\*?")
_LATEX_MATH = re.compile(r"\$[^$]{0,300}\$")
_CODE_SPAN = re.compile(r"\\texttt\{([^{}]{1,80})\}|`([^`\n]{1,80})`")
_CODE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SNAKE_CASE = re.compile(r"\b[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+\b")
_LATEX_TITLE = re.compile(r"\\title\*?\s*(?:\[[^\]]*\])?\s*\{([^}]*)\}")


@dataclass(frozen=True)
class Passage:
    """A few lines of the paper, never across a heading, with how much they count."""

    page: str
    section: str
    text: str
    weight: float


@dataclass
class PaperProfile:
    """What the ranking needs of a paper."""

    passages: list[Passage]
    terms: dict[str, float] = field(default_factory=dict)  # word -> salience
    names: dict[str, float] = field(default_factory=dict)  # named method word -> salience
    phrases: dict[tuple[str, str], float] = field(default_factory=dict)  # adjacent words
    identifiers: frozenset[str] = frozenset()  # code names it writes, lower case
    defined: dict[str, float] = field(default_factory=dict)  # quantities its equations define
    aliases: dict[str, frozenset[str]] = field(default_factory=dict)  # symbol -> its name


def read_paper(path: Path) -> dict[str, str]:
    """A paper file as pages (page number -> text): paper.json, PDF, LaTeX or Markdown.

    LaTeX and Markdown have no pages: their text is page "1". A folder means its .tex
    files (the one with ``\\documentclass`` first).
    """
    from lmr_author.authoring.paper_pdf import load_paper_json, pdf_to_pages

    path = Path(path)
    suffix = path.suffix.lower()
    if path.is_dir():
        sources = sorted(path.rglob("*.tex"))
        if not sources:
            raise UserError(
                "no .tex file in this folder", file=path, hint="Give the paper's LaTeX folder."
            )
        texts = [_read_text(p) for p in sources]
        texts.sort(key=lambda t: "\\documentclass" not in t)
        return {"1": "\n".join(texts)}
    if suffix == ".json":
        return load_paper_json(path)
    if suffix == ".pdf":
        return pdf_to_pages(path)
    if suffix in (".tex", ".md", ".markdown", ".txt"):
        return {"1": _read_text(path)}
    raise UserError(
        "unknown paper format",
        file=path,
        hint="Give paper.json, a PDF, a LaTeX file or folder, or a Markdown file.",
    )


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError as error:
        raise UserError(
            f"cannot read the paper ({error.strerror or error})",
            file=path,
            hint="Check the path.",
        ) from None


def paper_passages(
    pages: dict[str, str], *, lines_per_passage: int = 8, chars_per_passage: int = 700
) -> list[Passage]:
    """Passages of the paper (a paragraph or a few lines each, never across a heading)."""
    passages: list[Passage] = []
    state = _Sections()
    for page in sorted(pages, key=lambda p: int(p) if p.isdigit() else 0):
        lines = _plain_lines(pages[page])
        chunk: list[str] = []
        skip_next = False
        for index, line in enumerate(lines):
            if skip_next:
                skip_next = False
                continue
            following = lines[index + 1] if index + 1 < len(lines) else ""
            heading, level, used_next = state.heading(line, following)
            full = len(chunk) >= lines_per_passage or sum(map(len, chunk)) >= chars_per_passage
            if heading is not None or not line.strip() or full:
                _flush(passages, chunk, page, state)
            if heading is not None:
                state.enter(heading, level)
                skip_next = used_next
                continue
            if line.strip():
                chunk.append(line)
        _flush(passages, chunk, page, state)
    return passages


def paper_profile(pages: dict[str, str]) -> PaperProfile:
    """Passages, and the salience of each word, name and phrase of the paper."""
    passages = paper_passages(pages)
    counts: dict[str, float] = {}
    pairs: Counter[tuple[str, str]] = Counter()
    for passage in passages:
        found = [w for w in words(passage.text) if w not in PROSE]
        for word in found:
            counts[word] = counts.get(word, 0.0) + passage.weight
        if passage.weight >= 1.0:
            pairs.update(itertools.pairwise(found))
    head = _head(pages, passages)
    head_words = set(words(head))
    terms = {word: math.log1p(count) for word, count in counts.items()}
    for word in head_words & terms.keys():
        terms[word] *= 1.5
    phrases = {pair: math.log1p(count) for pair, count in pairs.items() if count >= 2}
    identifiers = _code_identifiers(pages)
    # the method's text, not the preamble's options nor the experiments' settings
    method = [p.text for p in passages if p.weight >= 1.0 and p.section]
    defined = defined_quantities(method)
    return PaperProfile(
        passages,
        terms,
        _named_methods(passages, head),
        phrases,
        identifiers,
        defined,
        acronym_aliases(method) | symbol_aliases(method, defined),
    )


def _code_identifiers(pages: dict[str, str]) -> frozenset[str]:
    """Names of code the paper writes: ``\\texttt{...}`` and Markdown's backticks, and any
    snake_case word of its text (``info_nce_loss``, LaTeX's ``find\\_best\\_action``)."""
    found: set[str] = set()
    for text in pages.values():
        # not the names of figures, labels, citations and files, nor math's subscripts
        if "\\begin{" in text or "\\section" in text:
            text = _LATEX_COMMENT.sub("", text)
        text = _LATEX_MATH.sub(" ", _LATEX_DROP.sub(" ", text))
        text = text.replace("\\_", "_")
        for quoted in _CODE_SPAN.finditer(text):
            found.update(_CODE_NAME.findall(quoted.group(1) or quoted.group(2)))
        found.update(_SNAKE_CASE.findall(text))
    # a plain word ("forward", "loss") names too many things to point at one
    return frozenset(
        name.lower()
        for name in found
        if len(name) >= 4 and ("_" in name.strip("_") or not name[1:].islower())
    )


def _named_methods(passages: list[Passage], head: str) -> dict[str, float]:
    """Words of the names the paper gives where it describes its method (SimPO, InfoNCE,
    MCTS, and proper nouns such as Lion: capitalised mid-sentence and never written in
    lower case), and of its title and abstract; names of datasets and baselines, met
    mostly in the experiments, count little."""
    counts: Counter[str] = Counter()
    lower_case = Counter(
        token for p in passages for token in _PLAIN_WORD.findall(p.text) if token.islower()
    )
    for passage in passages:
        if passage.weight < 1.0:
            continue
        for token in _NAME_TOKEN.findall(passage.text):
            for word in words(token):
                counts[word] += 1
        for match in _PROPER_NOUN.finditer(passage.text):
            token = match.group(1)
            if not lower_case[token.lower()] and token.lower() not in NOT_NAMES:
                counts[stem(token.lower())] += 1
    names = {word: math.log1p(count) for word, count in counts.items() if count >= 2}
    for token in _NAME_TOKEN.findall(head):
        for word in words(token):
            names[word] = names.get(word, 0.0) + 1.0
    for word in COMMON_NAMES & names.keys():
        names[word] *= 0.3
    return names


def _head(pages: dict[str, str], passages: list[Passage]) -> str:
    """The title and the abstract: what the paper says it is about."""
    first = pages.get("1") or next(iter(pages.values()), "")
    title = _LATEX_TITLE.search(first)
    lines = [title.group(1)] if title else []
    for line in first.splitlines()[:12]:
        if title or len(lines) >= 2:
            break
        markdown = _MARKDOWN_HEADING.match(line)
        if markdown:
            lines.append(markdown.group(1))
            break
        text = line.strip()
        if text and not text.startswith("\\") and not _VENUE.search(text):
            lines.append(text)
    abstract = [p.text for p in passages if p.section.lower() == "abstract"]
    return "\n".join(lines + abstract[:6])


def _plain_lines(text: str) -> list[str]:
    """Lines with PDF hyphenation joined and LaTeX comments and citations dropped."""
    text = _HYPHEN_BREAK.sub(r"\1\2", text)
    if "\\begin{" in text or "\\section" in text:
        text = _LATEX_COMMENT.sub("", text)
        lines = []
        for line in text.splitlines():
            if _LATEX_HEADING.search(line) or _ALGORITHM.search(line):
                lines.append(line)  # headings and algorithm boxes are found by their markup
                continue
            line = _LATEX_DROP.sub(" ", line)
            line = _LATEX_GREEK.sub(lambda m: f" {m.group(1).lower()} ", line)
            lines.append(_LATEX_COMMAND.sub(" ", line))
        return lines
    return text.splitlines()


class _Sections:
    """Which section the reader is in, and whether a line starts a new one.

    A subsection counts as its top-level section does when that one is related work,
    experiments or the like ("How well does X optimise the objective?" under
    Experiments is not the method); under a neutral top-level section it counts on its
    own.
    """

    def __init__(self) -> None:
        self.number: tuple[int, ...] = ()
        self.title = ""
        self.top_weight = 1.0
        self.weight = 1.0
        self.in_references = False
        self.in_appendix = False

    def heading(self, line: str, following: str) -> tuple[str | None, int, bool]:
        """(the heading's title or None, its level from 1, whether it took the next line)."""
        latex = _LATEX_HEADING.search(line)
        if latex:
            level = 1 + line[latex.start() :].count("sub", 0, 12)
            return latex.group(1).strip(), level, False
        markdown = _MARKDOWN_HEADING.match(line)
        if markdown:
            level = max(1, len(line.lstrip()) - len(line.lstrip().lstrip("#")) - 1)
            return re.sub(r"^[\d.]+\s*", "", markdown.group(1)), level, False
        if _NAMED.match(line) and line.strip()[0].isupper():
            return line.strip(), 1, False
        numbered = _NUMBERED.match(line)
        if numbered:
            title = numbered.group(3) or ""
            used_next = not title
            if used_next:
                title = following.strip()
            if _looks_like_title(title) and self._in_order(numbered.group(1), numbered.group(2)):
                return title, len(self.number), used_next
        return None, 0, False

    def _in_order(self, first: str, rest: str) -> bool:
        """Whether a heading number continues the numbering (1, 2, 2.1, 3; then A, A.1, B)."""
        lettered = first.isalpha()
        parts = (
            ord(first) - 64 if lettered else int(first),
            *tuple(int(p) for p in rest.split(".")[1:]),
        )
        if lettered != (self.in_references or self.in_appendix):
            return False  # letters start the appendix; numbers in the references are entries
        if lettered and not self.in_appendix:
            ok = parts[0] == 1
            if ok:
                self.in_appendix, self.number = True, ()
        elif not self.number:
            ok = parts[0] <= 2
        elif parts[0] == self.number[0]:
            ok = len(parts) > 1 and parts > self.number
        else:
            # the next section, or the one after when extraction lost a heading
            ok = 0 < parts[0] - self.number[0] <= 2 and (len(parts) == 1 or parts[1] == 1)
        if ok:
            self.number = parts
        return ok

    def enter(self, title: str, level: int) -> None:
        self.title = title
        if _REFERENCES.search(title) and len(title) < 20:
            self.in_references = True
        elif _APPENDIX.search(title):
            self.in_references, self.in_appendix = False, True
        elif self.in_references and self.in_appendix:
            self.in_references = False
        own = _title_weight(title)
        if level <= 1:
            self.top_weight = own
            self.weight = own
        else:
            self.weight = self.top_weight if self.top_weight < 1.0 else max(own, self.top_weight)
        if self.in_references:
            self.weight = 0.0
        elif self.in_appendix:
            self.weight *= 0.7


def _title_weight(title: str) -> float:
    if _LESSER.search(title):
        return 0.6
    if _METHOD.search(title):
        return 1.5
    return 1.0


def _looks_like_title(title: str) -> bool:
    if not 3 <= len(title) <= 90 or not title[0].isupper() or title.endswith((".", ",")):
        return False
    if title.count(",") > 1 or re.match(r"[A-Z]\.", title):
        return False  # an author list
    letters = sum(c.isalpha() for c in title)
    return letters >= 0.7 * len(title.replace(" ", "")) and not _EQUATION.search(title)


def _flush(passages: list[Passage], chunk: list[str], page: str, state: _Sections) -> None:
    text = "\n".join(chunk).strip()
    chunk.clear()
    if not text or state.weight <= 0:
        return
    weight = state.weight
    if _EQUATION.search(text):
        weight += 0.5
    if _ALGORITHM.search(text):
        weight += 0.5
    passages.append(Passage(page, state.title, text, weight))
