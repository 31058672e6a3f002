"""A paper given as LaTeX source: a .tex file, a source folder, or an arXiv-style tarball.

Research code often comes with its paper's LaTeX source rather than a PDF. This module
finds the main file (the one with ``\\documentclass`` and ``\\begin{document}``), pulls
in its ``\\input`` / ``\\include`` files, and turns it into a `PaperDocument`: title,
authors, abstract and numbered sections of plain text, display equations kept as LaTeX
(agents read LaTeX math better than a lossy rendering of it). The text conversion is
pylatexenc's; this module only decides the structure.
"""

from __future__ import annotations

import gzip
import logging
import re
import tarfile
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from lmr_author.authoring.paper_document import PaperDocument, clean_title
from lmr_author.authoring.paper_pdf import EQUATION_MARKER
from lmr_author.util.errors import UserError

#: Suffixes of the tarballs arXiv and others ship sources in.
TARBALL_SUFFIXES = (".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tar.xz", ".gz")
_MAX_INPUT_DEPTH = 20
_MAX_SOURCE_BYTES = 50 * 1024 * 1024  # a whole unpacked source, guards a tarball bomb

_INPUT = re.compile(r"\\(?:input|include|subfile)\s*(?:\{([^}]*)\}|\s+([^\s\\{}]+))")
_COMMENT = re.compile(r"(?<!\\)%.*")
_SECTION = re.compile(r"\\(section|subsection|subsubsection)(\*?)\s*(?:\[[^\]]*\])?\s*\{")
_ABSTRACT = re.compile(r"\\begin\{abstract\}(.*?)\\end\{abstract\}", re.S)
_DOCUMENT = re.compile(r"\\begin\{document\}(.*?)(?:\\end\{document\}|\Z)", re.S)
#: Commands (and their first argument) that hold no text of the paper.
_NOT_PROSE = (
    "bibliographystyle",
    "bibliography",
    "setlength",
    "addtolength",
    "setcounter",
    "vspace\\*?",
    "hspace\\*?",
    "pagestyle",
    "thispagestyle",
    "newcommand",
    "renewcommand",
    "newtheorem",
    "graphicspath",
)
#: Where the title is: \\title, or a conference style's own command (ICML's).
_TITLES = ("title", "icmltitle")
#: A macro defined without arguments: \\newcommand{\\name}{...}, \\newcommand\\name{...},
#: \\def\\name{...} (papers name their method so: \\newcommand{\\method}{TabDiff}).
_DEFINITION = re.compile(
    r"\\(?:(?:re|provide)?newcommand\*?\s*(?:\{\s*\\([A-Za-z@]+)\s*\}|\\([A-Za-z@]+))|"
    r"def\s*\\([A-Za-z@]+))\s*\{"
)
#: Commands the structure is read from: a paper redefining one keeps the original.
_STRUCTURE = {
    "section",
    "subsection",
    "subsubsection",
    "appendix",
    "begin",
    "end",
    "input",
    "include",
    "title",
    "icmltitle",
    "author",
    "maketitle",
    "item",
    "par",
}
_MACRO_ROUNDS = 4  # a macro using another, up to this deep (a recursive one stops here)
_DISPLAY_MATH = re.compile(r"^\s*(\\begin\{(equation|align|gather|multline|eqnarray)|\\\[|\$\$)")


def is_latex(path: Path) -> bool:
    """Whether ``path`` is given as LaTeX: a .tex file, a folder of them, or a tarball."""
    if path.is_dir():
        return any(path.rglob("*.tex"))
    name = path.name.lower()
    return name.endswith(".tex") or name.endswith(TARBALL_SUFFIXES)


def read_latex(path: Path) -> PaperDocument:
    """The paper in ``path`` (a .tex file, a source folder or a tarball); `UserError`
    names ``path`` when no main file can be found or read."""
    with _unpacked(path) as root:
        main = path if path.is_file() and path.suffix.lower() == ".tex" else _main_file(root, path)
        source = _expand_inputs(_read_tex(main, shown=path), main.parent, shown=path)
    return latex_document(source, shown=path)


def latex_document(source: str, *, shown: Path) -> PaperDocument:
    """The title, authors, abstract and sections of a whole LaTeX document's text."""
    source = _expand_macros(source)
    title = next(filter(None, (_command_argument(source, name) for name in _TITLES)), "")
    authors = _command_argument(source, "author")
    abstract_match = _ABSTRACT.search(source)
    body_match = _DOCUMENT.search(source)
    body = body_match.group(1) if body_match else source
    body = _ABSTRACT.sub("", body)
    body = re.sub(r"\\maketitle\b", "", body)
    # Commands whose arguments are never prose (they would read as stray words).
    body = _drop_commands(body, _NOT_PROSE)
    body = re.sub(r"\\begin\{(CJK\*?)\}(\{[^}]*\})*", "", body)
    body = re.sub(r"\\end\{CJK\*?\}", "", body)
    for name in (*_TITLES, "author"):
        argument_span = _command_span(body, name)
        if argument_span is not None:
            body = body[: argument_span[0]] + body[argument_span[1] :]
    try:
        sections = [(heading, _to_text(text)) for heading, text in _sections(body)]
        document = PaperDocument(
            title=clean_title(_inline_text(title)),
            authors=_inline_text(authors),
            abstract=_to_text(abstract_match.group(1)) if abstract_match else "",
            sections=[(heading, text) for heading, text in sections if text or heading],
        )
    except Exception as error:  # pylatexenc is tolerant; anything left is a broken source
        raise UserError(
            f"cannot read this LaTeX source ({type(error).__name__}: {error})",
            file=shown,
            hint="Check that it compiles, or give the paper as a PDF or Markdown.",
        ) from None
    if not document.sections and not document.abstract:
        raise UserError(
            "this LaTeX source has no text (no body between \\begin{document} and \\end{document})",
            file=shown,
            hint="Give the paper's main .tex file or its whole source folder.",
        )
    return document


def _expand_macros(source: str) -> str:
    """``source`` with its argument-less macros replaced by what they stand for (the
    method's name, mostly, which otherwise reads as nothing)."""
    definitions: dict[str, str] = {}
    for match in _DEFINITION.finditer(source):
        name = match.group(1) or match.group(2) or match.group(3)
        body = source[match.end() : _balanced(source, match.end() - 1) - 1]
        if name not in _STRUCTURE and "#" not in body:
            definitions[name] = body
    if not definitions:
        return source
    use = re.compile(r"\\(" + "|".join(map(re.escape, definitions)) + r")(?![A-Za-z@])")
    limit = 2 * len(source) + 1_000_000  # a macro bomb stops growing here
    for _ in range(_MACRO_ROUNDS):
        pieces, size, last = [], 0, 0
        for match in use.finditer(source):
            body = definitions[match.group(1)]
            size += match.start() - last + len(body)
            if size > limit:
                return source
            pieces += [source[last : match.start()], body]
            last = match.end()
        if not pieces:
            break
        source = "".join(pieces) + source[last:]
    return source


@contextmanager
def _unpacked(path: Path) -> Iterator[Path]:
    """The folder holding the source: ``path`` itself, its folder, or an unpacked tarball."""
    if path.is_dir():
        yield path
        return
    if not path.is_file():
        raise UserError("no such file or folder", file=path, hint="Give the paper's path.")
    if path.suffix.lower() == ".tex":
        yield path.parent
        return
    with tempfile.TemporaryDirectory(prefix="lmr-author-latex-") as scratch:
        root = Path(scratch)
        if tarfile.is_tarfile(path):
            _extract_tarball(path, root)
        else:  # arXiv serves a single-file source as a gzipped .tex
            try:
                with gzip.open(path) as handle:
                    data = handle.read(_MAX_SOURCE_BYTES + 1)
            except (OSError, EOFError) as error:
                raise UserError(
                    f"cannot unpack this file as a LaTeX source tarball ({error})",
                    file=path,
                    hint="Give a .tar.gz of the paper's source, its folder or its main .tex file.",
                ) from None
            (root / "main.tex").write_bytes(data[:_MAX_SOURCE_BYTES])
        yield root


def _extract_tarball(path: Path, root: Path) -> None:
    try:
        with tarfile.open(path) as tar:
            members = [m for m in tar.getmembers() if m.isfile() or m.isdir()]
            if sum(m.size for m in members) > _MAX_SOURCE_BYTES:
                raise UserError(
                    "this source tarball unpacks to more than 50 MB",
                    file=path,
                    hint="Give the paper's main .tex file or a folder with its sources.",
                )
            # The "data" filter refuses absolute paths, '..', links out and devices.
            tar.extractall(root, members=members, filter="data")
    except (tarfile.TarError, OSError, EOFError) as error:
        raise UserError(
            f"cannot unpack this LaTeX source tarball ({error})",
            file=path,
            hint="Give the paper's source folder or its main .tex file instead.",
        ) from None


def _main_file(root: Path, shown: Path) -> Path:
    candidates = []
    for tex in sorted(root.rglob("*.tex")):
        text = _read_tex(tex, shown=shown)
        if "\\documentclass" in text and "\\begin{document}" in text:
            candidates.append(tex)
    if not candidates:
        raise UserError(
            "no main LaTeX file here (none has \\documentclass and \\begin{document})",
            file=shown,
            hint="Give the paper's main .tex file, or the folder or tarball of its source.",
        )
    preferred = ("main.tex", "paper.tex", "ms.tex", "arxiv.tex")
    for name in preferred:
        for tex in candidates:
            if tex.name.lower() == name:
                return tex
    # Otherwise the biggest: a template or a response letter is shorter than the paper.
    return max(candidates, key=lambda tex: (tex.stat().st_size, -len(tex.parts)))


def _read_tex(path: Path, *, shown: Path) -> str:
    try:
        data = path.read_bytes()
    except OSError as error:
        raise UserError(
            f"cannot read the LaTeX file {path.name} ({error.strerror or error})",
            file=shown,
            hint="Check that the paper's source is complete and readable.",
        ) from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = data.decode("latin-1")  # inputenc's other common encoding; never fails
    return _strip_comments(text)


def _strip_comments(text: str) -> str:
    return "\n".join(_COMMENT.sub("", line) for line in text.splitlines())


def _expand_inputs(text: str, folder: Path, *, shown: Path, depth: int = 0) -> str:
    """``text`` with every \\input / \\include replaced by its file (inside ``folder``)."""
    if depth > _MAX_INPUT_DEPTH:
        return text
    root = folder.resolve()

    def replace(match: re.Match[str]) -> str:
        name = (match.group(1) or match.group(2) or "").strip()
        if not name:
            return ""
        try:
            target = (folder / name).resolve()
            if not target.is_file() and target.suffix != ".tex":
                target = target.with_name(target.name + ".tex")
            if not target.is_file() or not target.is_relative_to(root):
                return ""  # a missing part (or one outside the source) is left out, as TeX warns
        except (OSError, ValueError):  # a name no file can have (a NUL byte, too long)
            return ""
        return _expand_inputs(_read_tex(target, shown=shown), folder, shown=shown, depth=depth + 1)

    return _INPUT.sub(replace, text)


def _balanced(text: str, start: int) -> int:
    """The index just past the brace group that opens at ``text[start]`` ('{')."""
    depth = 0
    index = start
    while index < len(text):
        char = text[index]
        if char == "\\":
            index += 2  # an escaped character: \{ and \} are no braces
            continue
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return index + 1
        index += 1
    return len(text)


def _drop_commands(latex: str, names: tuple[str, ...]) -> str:
    """``latex`` without the commands ``names`` and their (first) argument."""
    pattern = re.compile(r"\\(?:" + "|".join(names) + r")\s*\{")
    while (match := pattern.search(latex)) is not None:
        latex = latex[: match.start()] + latex[_balanced(latex, match.end() - 1) :]
    return latex


def _command_span(text: str, name: str) -> tuple[int, int] | None:
    match = re.search(rf"\\{name}\s*(?:\[[^\]]*\])?\s*\{{", text)
    if match is None:
        return None
    return match.start(), _balanced(text, match.end() - 1)


def _command_argument(text: str, name: str) -> str:
    span = _command_span(text, name)
    if span is None:
        return ""
    whole = text[span[0] : span[1]]
    return whole[whole.index("{") + 1 : -1]


def _sections(body: str) -> Iterator[tuple[str, str]]:
    """(numbered heading, LaTeX text) of each section; the text before the first too."""
    counters = [0, 0, 0]
    appendix_at = body.find("\\appendix")
    position = 0
    heading = ""
    appendix_started = False
    for match in _SECTION.finditer(body):
        yield heading, body[position : match.start()]
        end = _balanced(body, match.end() - 1)
        title = _inline_text(body[match.end() : end - 1])
        level = ("section", "subsection", "subsubsection").index(match.group(1))
        in_appendix = 0 <= appendix_at < match.start()
        if in_appendix and not appendix_started:
            appendix_started, counters = True, [0, 0, 0]  # appendices count A, B, ...
        if match.group(2):  # starred: not numbered
            heading = title
        else:
            counters[level] += 1
            counters[level + 1 :] = [0] * (2 - level)
            first = counters[0]
            label = chr(ord("A") + first - 1) if in_appendix and first <= 26 else str(first)
            number = ".".join([label, *(str(c) for c in counters[1 : level + 1])])
            heading = f"{number} {title}"
        position = end
    yield heading, body[position:]


#: Macros pylatexenc's text rules format from their arguments but its parser does not know
#: (it would give them none, and the rule fails: ``\\href`` -> IndexError), with the
#: arguments LaTeX gives them.
_PARSER_MACROS = {"href": "{{", "hyperref": "[{", "footnotetext": "[{", "url": "{"}


def _converter() -> tuple[Any, Any]:
    """The text converter and the parser context it reads nodes made with."""
    from pylatexenc import latex2text, latexwalker, macrospec

    # Its warnings are about the paper's LaTeX, which is read as well as it can be; they
    # would only litter the user's terminal.
    logging.getLogger("pylatexenc").setLevel(logging.ERROR)

    def keys(node: Any) -> str:
        arguments = [a for a in (node.nodeargd.argnlist if node.nodeargd else []) if a]
        return arguments[-1].latex_verbatim().strip("{}") if arguments else ""

    def last_argument(node: Any, l2tobj: Any) -> str:
        arguments = [a for a in (node.nodeargd.argnlist if node.nodeargd else []) if a]
        return str(l2tobj.nodelist_to_text(arguments[-1:]))

    parser = latexwalker.get_default_latex_context_db()
    parser.add_context_category(
        "lmr-author",
        prepend=True,
        macros=[macrospec.MacroSpec(name, spec) for name, spec in _PARSER_MACROS.items()],
    )
    text = latex2text.get_default_latex_context_db()
    text.add_context_category(
        "lmr-author",
        prepend=True,
        macros=[
            latex2text.MacroTextSpec(name, simplify_repl=lambda n: f"[{keys(n)}]")
            for name in ("cite", "citep", "citet", "citealp", "citeauthor")
        ]
        + [
            latex2text.MacroTextSpec(name, simplify_repl=lambda n: f"({keys(n)})")
            for name in ("ref", "eqref", "autoref", "cref", "Cref")
        ]
        + [  # font and box commands pylatexenc drops whole (code names are in \\texttt)
            latex2text.MacroTextSpec(name, discard=False)
            for name in ("texttt", "textsf", "textup", "textmd", "textnormal", "mbox", "fbox")
        ]
        + [  # their text is their last argument (the parser's default drops it)
            latex2text.MacroTextSpec(name, simplify_repl=last_argument)
            for name in ("hyperref", "footnotetext")
        ]
        + [
            latex2text.MacroTextSpec("label", discard=True),
            latex2text.MacroTextSpec("includegraphics", discard=True),
        ],
    )

    class Tolerant(latex2text.LatexNodes2Text):  # type: ignore[misc]
        """A node whose text rule fails (arguments missing, an odd redefinition) reads as
        the text of its arguments or content: one node lost, never the paper."""

        def macro_node_to_text(self, node: Any) -> str:
            try:
                return str(super().macro_node_to_text(node))
            except Exception:
                arguments = node.nodeargd.argnlist if node.nodeargd else []
                return self._fallback([a for a in arguments or [] if a is not None])

        def environment_node_to_text(self, node: Any) -> str:
            try:
                return str(super().environment_node_to_text(node))
            except Exception:
                return self._fallback(node.nodelist or [])

        def specials_node_to_text(self, node: Any) -> str:
            try:
                return str(super().specials_node_to_text(node))
            except Exception:
                return str(node.specials_chars)

        def _fallback(self, nodes: list[Any]) -> str:
            try:
                return str(self.nodelist_to_text(nodes))
            except Exception:
                return ""

    converter = Tolerant(latex_context=text, math_mode="verbatim", strict_latex_spaces=True)
    return converter, parser


_CONVERTER: tuple[Any, Any] | None = None
#: Deeper than any paper nests groups; past it pylatexenc's recursive parser would fail.
_MAX_NESTING = 200


def _to_text(latex: str) -> str:
    """Plain text of a LaTeX fragment; a display equation is its own paragraph."""
    global _CONVERTER
    if _CONVERTER is None:
        _CONVERTER = _converter()
    converter, parser = _CONVERTER
    try:
        if _nesting(latex) > _MAX_NESTING:
            raise RecursionError("nested too deep")
        text = converter.latex_to_text(latex, latex_context=parser, tolerant_parsing=True)
    except Exception:  # a fragment pylatexenc cannot parse at all: its words, roughly
        text = _rough_text(latex)
    paragraphs = []
    for paragraph in re.split(r"\n\s*\n", text):
        paragraph = paragraph.strip()
        if not paragraph:
            continue
        if _DISPLAY_MATH.match(paragraph) and not paragraph.startswith(EQUATION_MARKER):
            paragraph = f"{EQUATION_MARKER} {paragraph}"
        paragraphs.append(paragraph)
    return "\n\n".join(paragraphs)


def _nesting(latex: str) -> int:
    """How deep braces and environments nest (at most; unbalanced ones count too)."""
    depth = deepest = 0
    for token in re.finditer(r"\\(?:begin|end)\b|\\.|[{}]", latex):
        opens = token.group() in ("{", "\\begin")
        closes = token.group() in ("}", "\\end")
        depth = depth + 1 if opens else max(depth - 1, 0) if closes else depth
        deepest = max(deepest, depth)
    return deepest


def _rough_text(latex: str) -> str:
    """The words of LaTeX pylatexenc could not read: commands and braces taken out."""
    text = re.sub(r"\\(begin|end)\s*\{[^}]*\}", " ", latex)
    text = re.sub(r"\\[A-Za-z@]+\*?|\\.|[{}]", " ", text)
    return re.sub(r"[ \t]+", " ", text)


def _inline_text(latex: str) -> str:
    """One line of text: a title or author list (\\thanks and \\footnote dropped)."""
    latex = _drop_commands(latex, ("thanks", "footnote"))
    latex = re.sub(r"\\\\(\[[^\]]*\])?", " ", latex)
    latex = re.sub(r"\\and\b", ", ", latex)
    text = " ".join(_to_text(latex).replace(EQUATION_MARKER, "").split())
    return re.sub(r"\s+,", ",", text).strip(" ,")
