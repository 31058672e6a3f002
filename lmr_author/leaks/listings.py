"""Code a paper or a document shows: LaTeX listings, Markdown code blocks, a PDF's text.

A paper that spells its algorithm out as pseudo-code is expected (it is the paper); what
is looked for here is code that parses as Python, or reads like it, in the blocks a
solver would copy from. Each block keeps the line it starts on, so a finding can say
where it is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: LaTeX environments that hold code verbatim (``algorithmic`` is pseudo-code: left out).
_LATEX = re.compile(
    r"\\begin\{(?P<env>lstlisting|verbatim|Verbatim|minted|python|pycode|pyblock|"
    r"BVerbatim|LVerbatim|codebox)\}(?:\[[^\]\n]*\])?(?:\{[^}\n]*\})?"
    r"(?P<body>.*?)\\end\{(?P=env)\}",
    re.DOTALL,
)
_MARKDOWN = re.compile(
    r"^(?P<fence>```+|~~~+)[ \t]*(?P<info>[^\n`]*)\n(?P<body>.*?)^(?P=fence)[ \t]*$",
    re.DOTALL | re.MULTILINE,
)
#: Info strings of Markdown blocks that are not Python.
_NOT_PYTHON = re.compile(
    r"^(bash|sh|shell|console|text|txt|json|ya?ml|toml|ini|cfg|html|xml|css|js|"
    r"javascript|ts|typescript|c|cpp|c\+\+|java|go|rust|r|sql|latex|tex|bibtex|diff)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Block:
    """A block of code in a document: its text, the line it starts on, and how it reads."""

    text: str
    line: int  # 1-based line of the document where ``text`` starts
    flat: bool = False  # its indentation was lost (a PDF's text)
    page: int | None = None


def latex_blocks(text: str) -> list[Block]:
    """The verbatim code environments of a LaTeX source."""
    return [
        Block(match.group("body"), text.count("\n", 0, match.start("body")) + 1)
        for match in _LATEX.finditer(text)
    ]


def markdown_blocks(text: str) -> list[Block]:
    """The fenced code blocks of a Markdown text that may be Python."""
    return [
        Block(match.group("body"), text.count("\n", 0, match.start("body")) + 1)
        for match in _MARKDOWN.finditer(text)
        if not _NOT_PYTHON.match(match.group("info").strip())
    ]


def page_blocks(pages: dict[int, str]) -> list[Block]:
    """The text of a paper's pages (PyMuPDF's, from paper.json or the PDF) where it has
    a ``def``: indentation is lost there, so functions are read flat."""
    return [
        Block(text, 1, flat=True, page=number)
        for number, text in sorted(pages.items())
        if "def " in text
    ]
