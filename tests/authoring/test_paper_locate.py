"""Finding the paper a repository ships: at the top, or in a folder named for it."""

from __future__ import annotations

from pathlib import Path

from lmr_author.authoring.paper_locate import find_paper

MAIN = (
    "\\documentclass{article}\n\\title{T}\n"
    "\\begin{document}\n\\input{sections/intro}\n\\end{document}\n"
)


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_the_main_tex_of_a_paper_folder_not_its_sections(tmp_path: Path) -> None:
    repo = _write(
        tmp_path,
        {
            "paper/main.tex": MAIN,
            "paper/sections/intro.tex": "\\section{Intro} words",
            "paper/generated_tables.tex": "\\begin{tabular}{c}\\end{tabular}",
            "paper/main.pdf": "%PDF-1.5",
            "model.py": "def f():\n    return 1\n",
        },
    )
    assert find_paper(repo) == repo / "paper" / "main.tex"


def test_a_main_file_by_another_name_in_a_nested_latex_folder(tmp_path: Path) -> None:
    repo = _write(
        tmp_path, {"latex/src/acl2025.tex": MAIN, "latex/src/reply.tex": "dear reviewers"}
    )
    assert find_paper(repo) == repo / "latex" / "src" / "acl2025.tex"


def test_the_top_level_paper_wins(tmp_path: Path) -> None:
    repo = _write(tmp_path, {"paper.json": "{}", "paper/main.tex": MAIN})
    assert find_paper(repo) == repo / "paper.json"


def test_a_paper_pdf_or_a_lone_markdown_paper(tmp_path: Path) -> None:
    pdf = _write(tmp_path / "a", {"manuscript/draft_v3.pdf": "%PDF-1.5"})
    assert find_paper(pdf) == pdf / "manuscript" / "draft_v3.pdf"
    markdown = _write(tmp_path / "b", {"paper/method.md": "# A Method", "paper/README.md": "x"})
    assert find_paper(markdown) == markdown / "paper" / "method.md"


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
