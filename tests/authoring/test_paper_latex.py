"""LaTeX papers in the shapes real ones come in: macros whose text rules need arguments
the parser does not give (``\\href``), groups cut by a section, nesting deeper than the
parser recurses, ``\\input`` names no file can have; and random or mutated LaTeX, which
reads as a paper or fails with a `UserError` naming the file, never anything else."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lmr_author.authoring.paper_document import PaperDocument
from lmr_author.authoring.paper_forms import read_paper
from lmr_author.authoring.paper_latex import read_latex
from lmr_author.util.errors import UserError


def _paper(body: str, preamble: str = "") -> str:
    return (
        "\\documentclass{article}\n" + preamble + "\\title{Toy Margins}\n"
        "\\begin{document}\n\\maketitle\n" + body + "\n\\end{document}\n"
    )


def _read(tmp_path: Path, source: str) -> PaperDocument:
    tex = tmp_path / "main.tex"
    tex.write_text(source, encoding="utf-8")
    return read_latex(tex)


def _all_text(document: PaperDocument) -> str:
    return "\n".join([document.abstract, *(f"{h}\n{t}" for h, t in document.sections)])


def test_links_read_as_their_text_and_address(tmp_path: Path) -> None:
    # pylatexenc formats \href from two arguments its parser never gave it (IndexError).
    document = _read(
        tmp_path,
        _paper(
            "\\begin{abstract}Code: \\href{https://example.org/toy}{our code}.\\end{abstract}\n"
            "\\section{Method}\nSee \\hyperref[sec:x]{the proof} and "
            "\\href{https://example.org/a}{\\textcolor{red}{\\texttt{a link}}}.\n"
            "\\footnotetext{Project page: \\href{https://example.org/p}{page}}"
        ),
    )
    assert document.title == "Toy Margins"
    assert "our code <https://example.org/toy>" in document.abstract
    method = dict(document.sections)["1 Method"]
    assert "the proof" in method and "a link <https://example.org/a>" in method
    assert "Project page: page" in method


@pytest.mark.parametrize(
    "odd",
    [
        "{\\href}",  # a macro whose arguments are missing
        "\\textcolor{red}",  # one argument of two, at the end of a group
        "\\frac{1}",  # a math macro short of an argument (outside math, too)
        "\\begin{itemize}\\item[\\href] x",  # an environment never closed
        "\\cite",  # a citation with no keys
        "{" * 2000 + "deep" + "}" * 2000,  # nesting deeper than the parser recurses
        "\\begin{x}" * 500 + "deeper",
    ],
    ids=["bare-href", "short-textcolor", "short-frac", "open-env", "bare-cite", "braces", "envs"],
)
def test_odd_latex_in_a_section_loses_at_most_itself(tmp_path: Path, odd: str) -> None:
    document = _read(
        tmp_path,
        _paper(f"\\section{{Method}}\nBefore {odd} after.\n\\section{{Results}}\nIt works."),
    )
    sections = dict(document.sections)
    assert "Before" in sections["1 Method"]
    assert sections["2 Results"] == "It works."


def test_a_group_a_section_cuts_in_two_reads_on_both_sides(tmp_path: Path) -> None:
    document = _read(
        tmp_path,
        _paper("\\section{One}\n{\\bf opened \\section{Two} closed} \\href{https://x.org}{x}"),
    )
    sections = dict(document.sections)
    assert "opened" in sections["1 One"] and "closed" in sections["2 Two"]


@pytest.mark.parametrize(
    "name",
    ["a\x00b", "x" * 5000, "/etc/passwd", "../outside", "main"],
    ids=["nul", "too-long", "absolute", "outside", "itself"],
)
def test_inputs_no_file_can_answer_are_left_out(tmp_path: Path, name: str) -> None:
    (tmp_path / "outside.tex").write_text("\\section{Leaked}\nsecret")
    folder = tmp_path / "src"
    folder.mkdir()
    document = _read(folder, _paper(f"\\section{{Method}}\nKept.\n\\input{{{name}}}\nAlso kept."))
    text = _all_text(document)
    assert "Kept." in text and "Also kept." in text
    assert "secret" not in text and "root:" not in text


def test_the_title_of_a_conference_style_and_a_method_named_by_a_macro(tmp_path: Path) -> None:
    source = (
        "\\documentclass{article}\n"
        "\\newcommand{\\method}{\\textsc{ToyDiff}\\xspace}\n\\def\\ours{\\method-L}\n"
        "\\newcommand\\loss{\\mathcal{L}}\n\\newcommand{\\emb}[1]{e_{#1}}\n"
        "\\begin{document}\n\\twocolumn[\\icmltitlerunning{Short}\n"
        "\\icmltitle{\\method: Toy Diffusion}\n]\n"
        "\\section{Method}\nWe propose \\method{} and \\ours, trained on $\\loss$ with \\emb{x}.\n"
        "\\end{document}\n"
    )
    document = _read(tmp_path, source)
    assert document.title == "ToyDiff: Toy Diffusion"
    method = dict(document.sections)["1 Method"]
    assert "We propose ToyDiff and ToyDiff-L, trained on" in method
    assert "\\mathcal{L}" in method  # math stays LaTeX, the macro spelled out


@pytest.mark.parametrize(
    "definitions",
    [
        "\\newcommand{\\r}{\\r\\r}",  # recursive
        "\\def\\a{\\b\\b\\b\\b\\b\\b\\b\\b}\\def\\b{\\c\\c\\c\\c\\c\\c\\c\\c}"
        "\\def\\c{\\d\\d\\d\\d\\d\\d\\d\\d}\\def\\d{" + "x" * 10_000 + "}",  # a bomb
        "\\renewcommand{\\section}{Oops}",  # the structure stays LaTeX's
    ],
    ids=["recursive", "bomb", "structure"],
)
def test_macros_that_would_not_end_or_hide_the_structure(tmp_path: Path, definitions: str) -> None:
    uses = "\\r \\a " * 200
    document = _read(
        tmp_path,
        _paper(f"\\section{{Method}}\nKept. {uses}\n\\section{{Results}}\nOk.", definitions),
    )
    sections = dict(document.sections)
    assert "Kept." in sections["1 Method"] and sections["2 Results"] == "Ok."
    assert sum(len(text) for text in sections.values()) < 50_000_000


def test_pylatexenc_warnings_stay_off_the_terminal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _read(tmp_path, _paper("\\section{Method}\n\\frac{1} \\input \\href"))
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == ""


#: Pieces real papers are made of, and the broken halves of them.
_TOKENS = [
    "\\documentclass{article}",
    "\\begin{document}",
    "\\end{document}",
    "\\title{",
    "\\author{",
    "\\and",
    "\\thanks{",
    "\\maketitle",
    "\\section{",
    "\\section*{",
    "\\subsection[",
    "\\subsubsection{",
    "\\appendix",
    "\\input{",
    "\\include ",
    "\\href",
    "\\href{",
    "\\hyperref[",
    "\\url{",
    "\\textcolor",
    "\\footnote",
    "\\footnotetext{",
    "\\cite",
    "\\citep[",
    "\\ref{",
    "\\label{",
    "\\begin{abstract}",
    "\\end{abstract}",
    "\\begin{equation}",
    "\\end{equation}",
    "\\begin{itemize}",
    "\\item",
    "\\end{itemize}",
    "\\begin{",
    "\\end{",
    "\\newcommand{\\x}{",
    "\\def\\y",
    "\\verb|",
    "\\frac",
    "\\mbox{",
    "\\bibliography{",
    "\\vspace*{",
    "\\\\",
    "{",
    "}",
    "[",
    "]",
    "$",
    "$$",
    "\\[",
    "\\]",
    "%",
    "\\",
    "&",
    "#",
    "^",
    "_",
    "~",
    "\n\n",
    " ",
    "word",
    "é",
    "\x00",
    "\U0001f600",
]
_LATEX = st.lists(st.sampled_from(_TOKENS) | st.text(max_size=6), max_size=60).map("".join)
_FUZZ = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
_HEAD = "\\documentclass{article}\\begin{document}"


def _reads_or_says_so(source: str, read: object) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        tex = Path(scratch) / "paper.tex"
        tex.write_text(source, encoding="utf-8", errors="replace")
        try:
            result = read(tex)  # type: ignore[operator]
        except UserError as error:
            assert str(tex) in str(error)
            assert "Traceback" not in str(error)
            return
    if isinstance(result, PaperDocument):
        assert isinstance(result.title, str) and "\n" not in result.title
        assert all(isinstance(h, str) and isinstance(t, str) for h, t in result.sections)
    else:
        assert result.pages and all(isinstance(text, str) for text in result.pages.values())


@_FUZZ
@given(_LATEX, st.booleans())
def test_random_latex_reads_or_fails_naming_the_file(body: str, with_head: bool) -> None:
    _reads_or_says_so((_HEAD if with_head else "") + body, read_latex)


@_FUZZ
@given(st.data())
def test_mutated_papers_read_or_fail_naming_the_file(data: st.DataObject) -> None:
    paper = _paper(
        "\\begin{abstract}We \\href{https://x.org}{study}.\\end{abstract}\n"
        "\\section{Method}\\label{m}\nA loss $L = \\frac{1}{2}$~\\citep[p.~2]{k}.\n"
        "\\begin{equation}\nL = -\\log \\sigma(x)\n\\end{equation}\n"
        "\\subsection*{Details}\\footnote{See \\url{https://x.org}.}\n"
        "\\appendix\\section{Proofs}\\begin{itemize}\\item[a] b\\end{itemize}"
    )
    for _ in range(data.draw(st.integers(1, 6))):
        at = data.draw(st.integers(0, len(paper)))
        cut = data.draw(st.integers(0, 20))
        paper = (
            paper[:at]
            + data.draw(st.sampled_from(_TOKENS) | st.text(max_size=4))
            + paper[at + cut :]
        )
    _reads_or_says_so(paper, read_latex)


@settings(_FUZZ, max_examples=25)
@given(_LATEX)
def test_random_latex_becomes_a_paper_json_or_a_user_error(body: str) -> None:
    # The whole way the app goes: read, laid out as a PDF, its pages' text.
    _reads_or_says_so(_HEAD + body, read_paper)
