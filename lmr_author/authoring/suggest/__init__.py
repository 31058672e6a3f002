"""Goal suggestions: which functions of the repository implement what the paper describes.

The paper (`paper_text`) gives passages under their sections, the salience of its words
in its method text, the names it gives and the quantities its equations define
(`quantities`); the code (`code_facts`) gives each function's names, words, size, uses
and what it computes; `passages` finds the passage each function
implements best; `rank` scores them; `conventions` holds the word lists of papers and
research code they rely on. Each suggestion says why: the words it shares with the
passage it matches best, and where that passage is. The annotator still chooses.

``benchmarks/bench_suggest.py`` measures how often the goal is among the first
suggestions, on the published benchmark and on a held-out manifest.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from lmr_author.authoring.suggest.code_facts import scan_repository
from lmr_author.authoring.suggest.paper_text import (
    Passage,
    paper_passages,
    paper_profile,
    read_paper,
)
from lmr_author.authoring.suggest.rank import Scored, score_functions
from lmr_author.authoring.suggest.words import words

__all__ = [
    "GoalSuggestion",
    "Passage",
    "paper_passages",
    "read_paper",
    "suggest_goals",
    "words",
]


@dataclass(frozen=True)
class GoalSuggestion:
    goal_file: str
    goal_function: str
    class_name: str
    line: int
    score: float
    terms: list[str] = field(default_factory=list)
    passage: str = ""
    page: str = ""
    section: str = ""
    copies: list[str] = field(default_factory=list)  # other files defining it again

    def why(self) -> str:
        """One line: the matching terms, and where in the paper."""
        where = f"page {self.page}" + (f", {self.section}" if self.section else "")
        excerpt = " ".join(self.passage.split())[:140]
        return f"matches {', '.join(self.terms)} ({where}): “{excerpt}”"


def suggest_goals(
    repo_dir: Path, pages: dict[str, str], *, limit: int = 10
) -> list[GoalSuggestion]:
    """The repository's functions ranked by how likely each is the paper's goal, best first."""
    paper = paper_profile(pages)
    if not paper.passages:
        return []
    repo = scan_repository(Path(repo_dir), paper.terms)
    ranked = [s for s in score_functions(repo, paper) if s.score > 0][:limit]
    return [_suggestion(scored) for scored in ranked]


def _suggestion(scored: Scored) -> GoalSuggestion:
    function = scored.function
    match = scored.match
    passage = match.passage if match else None
    terms = match.terms if match else []
    return GoalSuggestion(
        goal_file=function.file,
        goal_function=function.name,
        class_name=function.class_name,
        line=function.line,
        score=round(scored.score, 3),
        terms=list(terms or scored.terms),
        passage=passage.text if passage else "",
        page=passage.page if passage else "",
        section=passage.section if passage else "",
        copies=list(scored.copies),
    )
