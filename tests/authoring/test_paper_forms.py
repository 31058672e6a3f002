"""Papers in every form they come in: PDF, LaTeX (file, folder, tarball), Markdown and
paper.json all become paper.pdf + paper.json of the same structure; errors name the
user's file."""

from __future__ import annotations

import gzip
import io
import json
import tarfile
from pathlib import Path

import pytest

from lmr_author.authoring.paper_document import MAX_TITLE, clean_title, title_from_text
from lmr_author.authoring.paper_forms import read_paper, write_paper
from lmr_author.authoring.paper_pdf import load_paper_json, make_paper_pdf, pdf_to_pages
from lmr_author.cli import main
from lmr_author.util.errors import UserError

MAIN_TEX = r"""\documentclass{article}
\usepackage{amsmath}
\title{Margin Losses for Toy\\ Preferences\thanks{Work done at home.}}
\author{A. Tester \and B. Builder}
\begin{document}
\maketitle
\begin{abstract}
We study a margin loss. % a comment that is no text
\end{abstract}
\input{sections/method}
% \input{sections/unused}
\section{Experiments}\label{sec:exp}
The loss improves accuracy~\cite{dpo,simpo} as Table~\ref{tab:x} shows.
\appendix
\section{Proofs}
Trivial.
\end{document}
"""

METHOD_TEX = r"""\section{Method}\label{sec:method}
We minimise the logistic loss on the margin $c - r$:
\begin{equation}
L = -\log \sigma(\beta (c - r))
\end{equation}
\subsection{Details}
The temperature $\beta$ is 0.1.
"""

PAPER_MD = """---
title: Margin Losses for Toy Preferences
author: [A. Tester, B. Builder]
---

## Abstract

We study a margin loss.

## 1 Method

We minimise the logistic loss on the **margin** (see [the code](https://example.org)):

$$
L = -\\log \\sigma(\\beta (c - r))
$$

```python
# not a heading: a comment in code
loss = margin_loss(c, r)
```

## 2 Experiments

The loss improves accuracy.
"""


def _latex_folder(root: Path) -> Path:
    (root / "sections").mkdir(parents=True)
    (root / "main.tex").write_text(MAIN_TEX)
    (root / "sections" / "method.tex").write_text(METHOD_TEX)
    (root / "template.tex").write_text("\\documentclass{article}\\begin{document}x\\end{document}")
    return root


def _text(pages: dict[str, str]) -> str:
    return "\n".join(pages[str(n)] for n in range(1, len(pages) + 1))


def _assert_the_toy_paper(text: str) -> None:
    for part in ("Margin Losses for Toy", "1 Method", "1.1 Details", "2 Experiments", "A Proofs"):
        assert part in text
    assert "We study a margin loss." in text
    assert r"L = -\log \sigma(\beta (c - r))" in text  # math kept as LaTeX
    assert "[dpo,simpo]" in text and "(tab:x)" in text
    assert "a comment that is no text" not in text
    assert text.index("1 Method") < text.index("1.1 Details") < text.index("2 Experiments")


def test_latex_source_folder_follows_inputs(tmp_path: Path) -> None:
    paper = read_paper(_latex_folder(tmp_path / "src"))
    assert paper.form == "LaTeX"
    assert paper.title == "Margin Losses for Toy Preferences"
    _assert_the_toy_paper(_text(paper.pages))
    assert paper.pdf.startswith(b"%PDF-")
    assert pdf_to_pages_of(paper.pdf, tmp_path) == paper.pages  # paper.json is the PDF's text


def pdf_to_pages_of(data: bytes, tmp_path: Path) -> dict[str, str]:
    pdf = tmp_path / "check.pdf"
    pdf.write_bytes(data)
    return pdf_to_pages(pdf)


def test_latex_main_file_and_tarballs_read_alike(tmp_path: Path) -> None:
    src = _latex_folder(tmp_path / "src")
    tarball = tmp_path / "arxiv-source.tar.gz"
    with tarfile.open(tarball, "w:gz") as tar:
        tar.add(src, arcname=".")
    single = tmp_path / "single.gz"  # arXiv's form for a one-file source
    single.write_bytes(
        gzip.compress(MAIN_TEX.replace("\\input{sections/method}", METHOD_TEX).encode())
    )
    pages = read_paper(src / "main.tex").pages
    assert read_paper(tarball).pages == pages
    assert read_paper(single).pages == pages


def test_a_tarball_cannot_write_outside_its_scratch_folder(tmp_path: Path) -> None:
    tarball = tmp_path / "evil.tar"
    with tarfile.open(tarball, "w") as tar:
        data = MAIN_TEX.encode()
        info = tarfile.TarInfo("../escaped.tex")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    with pytest.raises(UserError) as caught:
        read_paper(tarball)
    assert str(tarball) in str(caught.value)
    assert not (tmp_path.parent / "escaped.tex").exists()


def test_markdown_paper(tmp_path: Path) -> None:
    md = tmp_path / "PAPER.md"
    md.write_text(PAPER_MD)
    paper = read_paper(md)
    assert (paper.form, paper.title) == ("Markdown", "Margin Losses for Toy Preferences")
    text = _text(paper.pages)
    assert "A. Tester, B. Builder" in text
    assert "Abstract. We study a margin loss." in text
    assert "1 Method" in text and "2 Experiments" in text
    assert "**margin** (see the code)" in text and "https://" not in text
    assert "# not a heading: a comment in code\nloss = margin_loss(c, r)" in text
    assert r"L = -\log \sigma(\beta (c - r))" in text


def test_markdown_title_from_the_first_heading(tmp_path: Path) -> None:
    md = tmp_path / "paper.md"
    md.write_text("# A *Plain* Title\n\nAuthors here.\n\n## Method\n\nText.\n")
    paper = read_paper(md)
    assert paper.title == "A Plain Title"
    assert "Authors here." in _text(paper.pages)


def test_published_paper_json_is_kept_with_its_title(tmp_path: Path) -> None:
    task = tmp_path / "15-Empathy"
    repo = task / "repo"
    repo.mkdir(parents=True)
    pages = {
        "1": "Language Models Predict Empathy Gaps\nBetween Social In-groups and Out-groups\n"
        "Yu Hou\nHal Daumé III\nUniversity of Maryland\nAbstract\nStudies of ...",
        "2": "1 Introduction\nPeople are often motivated ...",
    }
    (repo / "paper.json").write_text(json.dumps(pages))
    paper = read_paper(repo / "paper.json")
    assert paper.pages == pages and paper.form == "paper.json"
    assert (
        paper.title
        == "Language Models Predict Empathy Gaps Between Social In-groups and Out-groups"
    )
    assert "People are often motivated" in _text(pdf_to_pages_of(paper.pdf, tmp_path))
    (task / "info.json").write_text(json.dumps({"paper_name": "The Published Title", "year": 2025}))
    published = read_paper(repo / "paper.json")
    assert (published.title, published.year) == ("The Published Title", 2025)
    write_paper(published, tmp_path / "out")
    assert load_paper_json(tmp_path / "out" / "paper.json") == pages
    assert (tmp_path / "out" / "paper.pdf").read_bytes().startswith(b"%PDF-")


def test_pdf_title_is_a_title(tmp_path: Path) -> None:
    pdf = tmp_path / "paper.pdf"
    make_paper_pdf("A Tiny Paper", [("1 Method", "Text.")], pdf, authors="A. Author")
    paper = read_paper(pdf)
    assert (paper.form, paper.title) == ("PDF", "A Tiny Paper")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Title\nAbstract We study", "Title"),
        ("Title Abstract. We study things at length", "Title"),
        ("word " * 400, None),
    ],
)
def test_clean_title(text: str, expected: str | None) -> None:
    title = clean_title(text)
    assert len(title) <= MAX_TITLE + 1 and "\n" not in title
    if expected is not None:
        assert title == expected


def test_title_from_text_stops_at_authors_and_skips_headers() -> None:
    page = "Published as a conference paper at ICLR 2023\nADALORA: ADAPTIVE BUDGET FOR\n"
    page += "PARAMETER-EFFICIENT FINE-TUNING\nQingru Zhang†∗, Minshuo Chen‡\nAbstract\n..."
    assert title_from_text(page) == "ADALORA: ADAPTIVE BUDGET FOR PARAMETER-EFFICIENT FINE-TUNING"


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("paper.docx", b"PK\x03\x04", "cannot tell which form"),
        ("broken.tar.gz", b"not a tarball at all", "cannot unpack"),
        ("paper.md", b"\xff\xfe\x00broken", "not UTF-8"),
        ("empty.md", b"", "no text"),
        ("paper.json", b"[1, 2]", "page numbers"),
        ("paper.pdf", b"%PDF-1.4 garbage", "PDF"),
        ("empty.tex", b"\\documentclass{article}\\begin{document}\\end{document}", "no text"),
    ],
)
def test_every_error_names_the_users_file(
    tmp_path: Path, name: str, content: bytes, message: str
) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(UserError) as caught:
        read_paper(path)
    assert str(path) in str(caught.value) and message in str(caught.value)
    assert "lmr-author-" not in str(caught.value)  # never a scratch folder of ours


def test_missing_paper_and_folder_without_one(tmp_path: Path) -> None:
    for path in (tmp_path / "nothing.pdf", tmp_path):
        with pytest.raises(UserError) as caught:
            read_paper(path)
        assert str(path) in str(caught.value)


def test_paper_command_gives_a_task_its_paper_later(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    task = tmp_path / "07-Toy"
    (task / "repo").mkdir(parents=True)
    info = {
        "instance_id": 7,
        "folder_name": "07-Toy",
        "repo_folder_name": "repo",
        "paper_name": "Toy",
        "paper_url": "",
        "year": 2025,
        "repo_url": "",
        "implementations": [],
    }
    (task / "info.json").write_text(json.dumps(info))
    md = tmp_path / "paper.md"
    md.write_text(PAPER_MD)
    assert main(["paper", str(task), str(md)]) == 0
    assert "Markdown" in capsys.readouterr().out
    assert "1 Method" in _text(load_paper_json(task / "repo" / "paper.json"))
    assert (task / "repo" / "paper.pdf").is_file()
    assert main(["paper", str(task), str(md)]) == 2
    assert "--force" in capsys.readouterr().err
    assert main(["paper", str(task), str(md), "--force"]) == 0
    src = _latex_folder(tmp_path / "src")
    assert main(["paper", str(src / "main.tex"), "-o", str(tmp_path / "p.json")]) == 0
    assert "1.1 Details" in _text(load_paper_json(tmp_path / "p.json"))
