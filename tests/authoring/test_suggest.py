"""Goal suggestions: the sample tasks' goal functions rank at the top, with a reason."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lmr_author.authoring.suggest import paper_passages, suggest_goals, words

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = sorted(p for p in (ROOT / "benchmark").glob("0*") if p.is_dir())


def test_identifiers_split_into_words() -> None:
    assert words("robustScore_v2 of the HTTPServer losses") == [
        "robust",
        "score",
        "http",
        "server",
        "losse",
    ]


@pytest.mark.parametrize("task_dir", SAMPLES, ids=[p.name for p in SAMPLES])
def test_goal_functions_of_the_samples_are_in_the_top_three(task_dir: Path) -> None:
    info = json.loads((task_dir / "info.json").read_text(encoding="utf-8"))
    pages = json.loads(
        (task_dir / info["repo_folder_name"] / "paper.json").read_text(encoding="utf-8")
    )
    golden_repo = ROOT / "benchmark" / "_sources" / "tasks" / task_dir.name / "repo"
    suggestions = suggest_goals(golden_repo, pages, limit=3)
    names = [(s.goal_file, s.goal_function) for s in suggestions]
    for impl in info["implementations"]:
        assert (impl["goal_file"], impl["goal_function"]) in names
    top = suggestions[0]
    assert top.terms and top.passage and top.page
    assert top.why().startswith("matches ")


def test_method_sections_and_equations_weigh_more() -> None:
    pages = {"1": "1 Introduction\nWe study losses.\n\n3 Method\nThe loss is L = -log p (1)"}
    weights = {p.section: p.weight for p in paper_passages(pages)}
    assert weights["Method"] > weights["Introduction"]
