"""A paper given as Markdown (a README-style write-up, a paper converted to .md).

markdown-it-py parses it, so headings inside code blocks are not taken for sections.
The title is the front matter's ``title``, else the first level-1 heading, else the
first heading; a section called "Abstract" becomes the abstract; every other heading
starts a section. Display math (``$$ ... $$``) stays one paragraph, as an equation.
"""

from __future__ import annotations

import re
from pathlib import Path

from lmr_author.authoring.paper_document import PaperDocument, clean_title
from lmr_author.authoring.paper_pdf import CODE_MARKER, EQUATION_MARKER
from lmr_author.util.errors import UserError
from lmr_author.util.json_input import read_text

MARKDOWN_SUFFIXES = (".md", ".markdown", ".mdown", ".mkd")
_FRONT_MATTER = re.compile(r"\A---\s*\n(.*?)\n(?:---|\.\.\.)\s*\n", re.S)
_IMAGE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_LINK = re.compile(r"(?<!!)\[([^\]]+)\]\([^)]*\)")
_HTML_TAG = re.compile(r"</?[A-Za-z][^>]*>")
_FENCE = re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.M | re.S)


def is_markdown(path: Path) -> bool:
    return path.suffix.lower() in MARKDOWN_SUFFIXES


def read_markdown(path: Path) -> PaperDocument:
    """The paper in the Markdown file ``path``; `UserError` names it when it has no text."""
    text = read_text(path, what="Markdown paper", hint="Save the paper as UTF-8 Markdown.")
    return markdown_document(text, shown=path)


def markdown_document(text: str, *, shown: Path) -> PaperDocument:
    from markdown_it import MarkdownIt

    front: dict[str, str] = {}
    match = _FRONT_MATTER.match(text)
    if match:
        front = _front_matter(match.group(1))
        text = text[match.end() :]
    lines = text.splitlines()
    tokens = MarkdownIt("commonmark").parse(text)
    headings: list[tuple[int, int, int, str]] = []  # (level, first line, end line, text)
    for position, token in enumerate(tokens):
        if token.type == "heading_open" and token.map is not None:
            inline = tokens[position + 1].content if position + 1 < len(tokens) else ""
            headings.append((int(token.tag[1:]), token.map[0], token.map[1], _plain(inline)))
    title = front.get("title", "")
    title_heading = None
    if not title and headings:
        level_one = [h for h in headings if h[0] == 1]
        title_heading = (level_one or headings)[0]
        title = title_heading[3]
    abstract = ""
    sections: list[tuple[str, str]] = []
    preface = _body(lines[: headings[0][1]] if headings else lines)
    if preface:
        sections.append(("", preface))
    for index, heading in enumerate(headings):
        stop = headings[index + 1][1] if index + 1 < len(headings) else len(lines)
        body = _body(lines[heading[2] : stop])
        if heading is title_heading:
            if body:  # the authors' line, a teaser: text under the title
                sections.append(("", body))
        elif heading[3].strip().lower().rstrip(".:") == "abstract" and not abstract:
            abstract = body.replace(EQUATION_MARKER + " ", "")
        else:
            sections.append((heading[3], body))
    document = PaperDocument(
        title=clean_title(title),
        authors=front.get("author", front.get("authors", "")),
        abstract=abstract,
        sections=sections,
    )
    if not document.title and not any(body for _, body in sections) and not abstract:
        raise UserError(
            "this Markdown file has no text",
            file=shown,
            hint="Give the paper's Markdown (its title as a '# ' heading).",
        )
    return document


def _front_matter(text: str) -> dict[str, str]:
    """``key: value`` lines of a YAML front matter (lists of authors joined by commas)."""
    import yaml  # type: ignore[import-untyped]

    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError:
        return {}
    if not isinstance(data, dict):
        return {}
    found: dict[str, str] = {}
    for key, value in data.items():
        if isinstance(value, list):
            value = ", ".join(
                str(item.get("name", item)) if isinstance(item, dict) else str(item)
                for item in value
            )
        if isinstance(value, str | int | float):
            found[str(key).lower()] = " ".join(str(value).split())
    return found


def _plain(inline: str) -> str:
    """Inline Markdown as text: links and images by their text, no emphasis marks."""
    text = _IMAGE.sub(r"\1", inline)
    text = _LINK.sub(r"\1", text)
    text = _HTML_TAG.sub("", text)
    return re.sub(r"(\*\*|__|\*|`)", "", text).strip()


def _body(lines: list[str]) -> str:
    """Paragraphs of a section: display math marked as an equation, code kept line by
    line (its blank lines held by a zero-width space), images and link targets dropped."""
    text = _FENCE.sub(lambda m: re.sub(r"\n(?=\s*\n)", "\n\u200b", m.group(0)), "\n".join(lines))
    paragraphs: list[str] = []
    for block in re.split(r"\n\s*\n", text):
        block = block.strip("\n ")
        if not block:
            continue
        if block.startswith(CODE_MARKER):
            paragraphs.append(block)
            continue
        if block.startswith("$$"):
            block = f"{EQUATION_MARKER} " + block.strip("$").strip()
        else:
            # Emphasis marks stay: a '*' may be math, a backtick inline code.
            block = _HTML_TAG.sub("", _IMAGE.sub(r"\1", _LINK.sub(r"\1", block))).strip()
        if block:
            paragraphs.append(block)
    return "\n\n".join(paragraphs)
