"""Finding the paper a repository ships by what a file holds, whatever its name: at the
top, or in a folder named for it or for the write-up."""

from __future__ import annotations

from pathlib import Path

from lmr_author.authoring.paper_locate import find_paper, find_papers

MAIN = (
    "\\documentclass{article}\n\\title{T}\n"
    "\\begin{document}\n\\input{sections/intro}\n\\end{document}\n"
)
# The shape of a paper converted to Markdown by a PDF converter (paper2code's layout):
# numbered, upper-case headings at mixed levels, the abstract a level-4 heading.
CONVERTED = """\
# GPS: A PROBABILISTIC SIMILARITY WITH GUMBEL PRIORS FOR SET-TO-SET MATCHING

Ziming Zhang, Fangzhou Lin

#### Abstract

Set-to-set matching aims to identify correspondences between two sets.

## 1 INTRODUCTION

Problem. Set-to-set matching involves comparing two sets of items.

# 2 RELATED WORK

Set-to-Set Matching. Many tasks can be framed as set-to-set matching.

# 3 APPROACH

### 3.1 Preliminaries

We denote two sets of points.

## 4 EXPERIMENTS

# 5 CONCLUSION

# REFERENCES
"""
README = """\
# gps

## Installation

```
# 1 INTRODUCTION (a heading in a code block is no heading)
pip install -e .
```

## Usage

## Citation

## License
"""


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def _pdf(path: Path, *, abstract: str = "", pages: int = 1) -> Path:
    from lmr_author.authoring.paper_pdf import make_paper_pdf

    path.parent.mkdir(parents=True, exist_ok=True)
    body = "\n\n".join(["We minimise a logistic loss on the score margin."] * 12 * pages)
    make_paper_pdf("Margin Losses", [("Method", body)], path, abstract=abstract)
    return path


def test_a_markdown_paper_at_the_top_under_any_name(tmp_path: Path) -> None:
    repo = _write(
        tmp_path,
        {
            "paper2code_paper.md": CONVERTED,
            "README.md": README,
            "CHANGELOG.md": "# Changes\n\n## 1.0\n\n## 0.9\n",
            "model.py": "def f():\n    return 1\n",
        },
    )
    [found] = find_papers(repo)
    assert found.path == repo / "paper2code_paper.md"
    assert found.form == "Markdown"
    assert "Abstract" in found.evidence and "Introduction" in found.evidence


def test_a_readme_is_no_paper_even_with_a_heading_like_one(tmp_path: Path) -> None:
    repo = _write(tmp_path, {"README.md": README, "docs/usage.md": "# Usage\n\n## Options\n"})
    assert find_papers(repo) == []


def test_a_latex_document_under_any_name_but_not_slides(tmp_path: Path) -> None:
    slides = MAIN.replace("{article}", "[aspectratio=169]{beamer}")
    repo = _write(
        tmp_path,
        {
            "paper2code_paper.tex": MAIN.replace("\\begin{document}", "\\begin{document}\n"),
            "talk/slides.tex": slides,
            "docs/talk.tex": slides,
        },
    )
    assert [c.path for c in find_papers(repo)] == [repo / "paper2code_paper.tex"]


def test_the_main_tex_of_a_paper_folder_not_its_sections(tmp_path: Path) -> None:
    repo = _write(
        tmp_path,
        {
            "paper/main.tex": MAIN,
            "paper/sections/intro.tex": "\\section{Intro} words",
            "paper/generated_tables.tex": "\\begin{tabular}{c}\\end{tabular}",
            "model.py": "def f():\n    return 1\n",
        },
    )
    _pdf(repo / "paper" / "figure.pdf")  # a figure: one page, no abstract, not a paper
    assert find_paper(repo) == repo / "paper" / "main.tex"


def test_a_main_file_by_another_name_in_a_nested_latex_folder(tmp_path: Path) -> None:
    repo = _write(
        tmp_path, {"latex/src/acl2025.tex": MAIN, "latex/src/reply.tex": "dear reviewers"}
    )
    assert find_paper(repo) == repo / "latex" / "src" / "acl2025.tex"


def test_the_top_level_paper_wins(tmp_path: Path) -> None:
    repo = _write(tmp_path, {"paper.json": '{"1": "page one"}', "paper/main.tex": MAIN})
    found = find_papers(repo)
    assert [c.path for c in found] == [repo / "paper.json", repo / "paper" / "main.tex"]


def test_a_pdf_by_its_first_page_anywhere_reasonable(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    _pdf(repo / "docs" / "iclr2025_conference.pdf", abstract="We study margins.", pages=3)
    _pdf(repo / "docs" / "architecture.pdf")  # a diagram: no abstract
    _pdf(repo / "figures" / "plot.pdf", abstract="not looked at: figures/ is no paper folder")
    (repo / "docs" / "broken.pdf").write_bytes(b"%PDF-1.5 truncated")
    [found] = find_papers(repo)
    assert found.path == repo / "docs" / "iclr2025_conference.pdf"
    assert found.form == "PDF" and "abstract" in found.evidence


def test_in_a_folder_named_for_the_paper_a_lone_pdf_or_markdown_is_it(tmp_path: Path) -> None:
    pdf = tmp_path / "a"
    _pdf(pdf / "manuscript" / "draft_v3.pdf", pages=3)
    assert find_paper(pdf) == pdf / "manuscript" / "draft_v3.pdf"
    markdown = _write(tmp_path / "b", {"paper/method.md": "# A Method", "paper/README.md": README})
    assert find_paper(markdown) == markdown / "paper" / "method.md"


def test_several_papers_are_all_listed_best_first(tmp_path: Path) -> None:
    repo = _write(
        tmp_path,
        {
            "paper_v2.md": CONVERTED,
            "latex/main.tex": MAIN.replace(
                "\\title{T}", "\\title{T}\\begin{abstract}x\\end{abstract}"
            ),
        },
    )
    _pdf(repo / "paper.pdf", abstract="We study margins.", pages=4)
    found = find_papers(repo)
    assert [c.path for c in found] == [
        repo / "paper.pdf",
        repo / "latex" / "main.tex",
        repo / "paper_v2.md",
    ]
    assert found[0].describe(repo).startswith("paper.pdf (PDF: ")


def test_documentation_is_not_a_paper(tmp_path: Path) -> None:
    repo = _write(
        tmp_path,
        {
            "docs/usage.md": "# Usage",
            "docs/api.pdf": "%PDF-1.5",
            "docs/more.pdf": "%PDF-1.5",
            "vendor/lib/docs/main.tex": MAIN,
            "notes.tex": "\\section{not a document}",
        },
    )
    assert find_paper(repo) is None


def test_a_link_leading_out_of_the_repository_is_not_followed(tmp_path: Path) -> None:
    outside = _write(tmp_path / "outside", {"secret_paper.md": CONVERTED})
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "paper.md").symlink_to(outside / "secret_paper.md")
    (repo / "paper").symlink_to(outside, target_is_directory=True)
    assert find_papers(repo) == []


def test_a_flattened_latex_source_without_its_documentclass(tmp_path: Path) -> None:
    # A benchmark's paper: the preamble pasted in, the \documentclass line dropped.
    flattened = (
        "\\usepackage{amsmath}\n\\newcommand{\\method}{TabDiff}\n"
        "\\title{\\method: a Mixed-type Diffusion Model}\n\\begin{document}\n"
        "\\begin{abstract}We generate tables.\\end{abstract}\n"
        "\\section{Introduction}\nText.\n\\section{Method}\nMore.\n\\end{document}\n"
    )
    repo = _write(
        tmp_path,
        {"paper2code_paper.tex": flattened, "table.tex": "\\begin{document}\\end{document}"},
    )
    [found] = find_papers(repo)
    assert found.path == repo / "paper2code_paper.tex"
    assert found.evidence.startswith("\\begin{document}, an abstract")
