"""Where a repository keeps its own paper, so the app can load it on arrival.

Research repositories ship their paper beside the code more often than not, but seldom
at the top as ``paper.pdf``: ``paper/main.tex``, ``latex/`` with ``sections/``, a
``manuscript/paper.pdf``. Only the top folder and the folders named for a paper (and
their direct subfolders) are looked at: a repository may be huge, and a ``.tex`` deep
in a vendored package is not the paper.
"""

from __future__ import annotations

from pathlib import Path

#: Files at the top of a repository that are its paper (a published task's layout first).
_TOP_NAMES = ("paper.pdf", "paper.json", "paper.tex", "paper.md", "main.tex")
#: Folders that hold a paper's source or PDF.
_PAPER_FOLDERS = ("paper", "papers", "latex", "tex", "manuscript", "arxiv", "writeup", "docs")
#: A main file by these names wins over a bigger one (a response letter, a poster).
_MAIN_NAMES = ("main.tex", "paper.tex", "ms.tex", "arxiv.tex")
_PDF_NAMES = ("paper.pdf", "main.pdf", "ms.pdf", "arxiv.pdf")
_HEAD_BYTES = 200_000  # a main file says \documentclass near its top


def find_paper(repo: Path) -> Path | None:
    """The repository's own paper: a top-level paper file, else the main LaTeX file, a
    paper PDF or a lone Markdown paper in a paper folder; None when there is none."""
    for name in _TOP_NAMES:
        if (repo / name).is_file():
            return repo / name
    found = _main_tex(repo)
    if found is not None:
        return found
    for folder in _paper_folders(repo):
        found = _main_tex(folder) or _paper_pdf(folder) or _lone_markdown(folder)
        if found is not None:
            return found
    return None


def _paper_folders(repo: Path) -> list[Path]:
    folders: list[Path] = []
    try:
        children = sorted(repo.iterdir())
    except OSError:
        return folders
    by_name = {child.name.lower(): child for child in children if child.is_dir()}
    for name in _PAPER_FOLDERS:
        folder = by_name.get(name)
        if folder is None:
            continue
        folders.append(folder)
        try:
            folders.extend(sorted(sub for sub in folder.iterdir() if sub.is_dir()))
        except OSError:
            continue
    return folders


def _main_tex(folder: Path) -> Path | None:
    mains = [tex for tex in sorted(folder.glob("*.tex")) if _is_main_tex(tex)]
    for name in _MAIN_NAMES:
        for tex in mains:
            if tex.name.lower() == name:
                return tex
    return max(mains, key=lambda tex: tex.stat().st_size) if mains else None


def _is_main_tex(tex: Path) -> bool:
    try:
        with tex.open("rb") as handle:
            head = handle.read(_HEAD_BYTES)
    except OSError:
        return False
    return b"\\documentclass" in head and b"\\begin{document}" in head


def _paper_pdf(folder: Path) -> Path | None:
    pdfs = sorted(folder.glob("*.pdf"))
    for name in _PDF_NAMES:
        for pdf in pdfs:
            if pdf.name.lower() == name:
                return pdf
    # A lone PDF in a folder named for the paper is the paper; in docs/ it may be anything.
    return pdfs[0] if len(pdfs) == 1 and folder.name.lower() != "docs" else None


def _lone_markdown(folder: Path) -> Path | None:
    if folder.name.lower() not in ("paper", "papers", "manuscript", "writeup"):
        return None  # docs/*.md is documentation, not the paper
    markdown = sorted(folder.glob("*.md"))
    named = [md for md in markdown if md.name.lower() not in ("readme.md", "changelog.md")]
    return named[0] if len(named) == 1 else None
