"""Goal suggestions, the paper side: headings, passage weights, names, paper formats."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lmr_author.authoring.suggest import paper_passages, read_paper
from lmr_author.authoring.suggest.paper_text import paper_profile
from lmr_author.util.errors import UserError

PDF_TEXT = {
    "1": "Margin Losses\nAbstract\nWe propose SimPO, a margin loss.\n1\nIntroduction\n"
    "Preference learning is popular (Smith, 2020).\n1\n",
    "2": "2\nRelated Work\nMany losses exist.\n3\nMethod\nThe SimPO loss is\n"
    "L = -log σ(β r_w - β r_l) (1)\nwhere β scales the reward. The optimiza-\n"
    "tion uses SimPO margins.\n2\n",
    "3": "4\nExperiments\nWe train on UltraFeedback.\n4.1\nDoes the objective help?\n"
    "The objective helps a little.\nReferences\n[1] A. Smith, B. Jones. Zebra losses.\n"
    "2\nUnrelated Entry Title\nA\nProof of the Margin Bound\nThe bound holds.\n",
}


def _sections(pages: dict[str, str]) -> dict[str, float]:
    return {p.section: p.weight for p in paper_passages(pages)}


def test_pdf_headings_on_their_own_line_page_numbers_and_references() -> None:
    weights = _sections(PDF_TEXT)
    assert {"Introduction", "Related Work", "Method", "Experiments"} <= weights.keys()
    assert weights["Method"] > weights["Introduction"] > 0
    assert weights["Method"] > weights["Related Work"]
    # a question under Experiments is an experiment, even if it names the objective
    assert weights["Does the objective help?"] == pytest.approx(weights["Experiments"])
    # the references are no evidence; the appendix after them is, a little
    texts = " ".join(p.text for p in paper_passages(PDF_TEXT))
    assert "Zebra" not in texts and "Unrelated Entry Title" not in weights
    assert 0 < weights["Proof of the Margin Bound"] < weights["Method"]


def test_method_sections_and_equations_weigh_more() -> None:
    pages = {"1": "1 Introduction\nWe study losses.\n\n2 Method\nThe loss is L = -log p (1)"}
    weights = _sections(pages)
    assert weights["Method"] > weights["Introduction"]


def test_profile_joins_hyphenated_words_spells_greek_and_finds_names() -> None:
    profile = paper_profile(PDF_TEXT)
    assert "optimization" in profile.terms and "optimiza" not in profile.terms
    assert "beta" in profile.terms and "sigma" in profile.terms
    assert profile.names["simpo"] > profile.names.get("ultrafeedback", 0.0)


def test_common_model_names_count_less_than_the_paper_s_own() -> None:
    text = "1\nMethod\nOur BiasNorm layer replaces LayerNorm in GPT and GPT-2 models. " * 3
    profile = paper_profile({"1": "BiasNorm for GPT\n" + text})
    assert profile.names["biasnorm"] > 2 * profile.names["gpt"]


LATEX = r"""\documentclass{article}
\title{Dynamic Tanh}
\begin{document}
\section{Related Work}
Normalization layers \cite{ba2016} are everywhere.
\section{Method}
\label{sec:method}
We define $\mathrm{DyT}(x) = \tanh(\alpha x)$ with a learnable \alpha. % a comment: zebra
\begin{equation} y = \gamma \cdot \mathrm{DyT}(x) + \beta \end{equation}
\subsection{Initialization}
We set \alpha to 0.5.
\end{document}
"""


def test_latex_sections_commands_and_greek_letters(tmp_path: Path) -> None:
    paper = tmp_path / "main.tex"
    paper.write_text(LATEX, encoding="utf-8")
    pages = read_paper(paper)
    weights = _sections(pages)
    assert weights["Method"] > weights["Related Work"]
    assert weights["Initialization"] >= weights["Method"] - 0.5
    profile = paper_profile(pages)
    assert {"alpha", "gamma", "beta", "tanh", "dyt"} <= profile.terms.keys()
    assert not {"mathrm", "cite", "label", "zebra", "equation"} & profile.terms.keys()
    assert "dyt" in profile.names


def test_a_latex_folder_starts_with_its_main_file(tmp_path: Path) -> None:
    (tmp_path / "a_sections.tex").write_text("\\section{Method}\nThe second part.\n")
    (tmp_path / "main.tex").write_text("\\documentclass{article}\n\\title{First}\n")
    text = read_paper(tmp_path)["1"]
    assert text.index("\\title{First}") < text.index("The second part.")


def test_markdown_headings(tmp_path: Path) -> None:
    paper = tmp_path / "paper.md"
    paper.write_text("# A Method\n\n## 1 Related work\nOld.\n\n## 2 Our approach\nNew loss.\n")
    weights = _sections(read_paper(paper))
    assert weights["Our approach"] > weights["Related work"]


def test_paper_json_and_pdf_read_as_pages(tmp_path: Path) -> None:
    from lmr_author.authoring.paper_pdf import make_paper_pdf

    pages = {"1": "Title\n1 Method\nText."}
    (tmp_path / "paper.json").write_text(json.dumps(pages), encoding="utf-8")
    assert read_paper(tmp_path / "paper.json") == pages
    make_paper_pdf("A Title", [("Method", "The margin loss.")], tmp_path / "paper.pdf")
    assert "margin loss" in read_paper(tmp_path / "paper.pdf")["1"]


@pytest.mark.parametrize("name", ["paper.docx", "missing.tex"])
def test_unreadable_papers_are_user_errors_naming_the_file(tmp_path: Path, name: str) -> None:
    if name.endswith(".docx"):
        (tmp_path / name).write_bytes(b"PK\x03\x04")
    with pytest.raises(UserError) as caught:
        read_paper(tmp_path / name)
    assert name in str(caught.value)


def test_a_folder_without_latex_is_a_user_error(tmp_path: Path) -> None:
    with pytest.raises(UserError, match=r"no \.tex file"):
        read_paper(tmp_path)


def test_proper_nouns_are_names_but_sentence_starts_and_figures_are_not() -> None:
    text = (
        "2\nMethod\nWe call the optimizer Lion, and in Figure 2 we show that Lion "
        "needs less memory. Momentum is kept; the momentum of Lion is a sign.\n"
        "Momentum again, as Figure 3 shows.\n"
    )
    names = paper_profile({"1": "Symbolic Discovery\n" + text}).names
    assert "lion" in names
    assert "figure" not in names and "momentum" not in names
