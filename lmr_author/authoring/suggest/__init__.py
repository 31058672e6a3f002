"""Goal suggestions: which functions of the repository implement what the paper describes.

The paper (`paper_text`) gives passages under their sections, the salience of its words
in its method text, the names it gives and the quantities its equations define
(`quantities`); the code (`code_facts`) gives each function's names, words, size, uses
and what it computes; `passages` finds the passage each function
implements best; `rank` scores them; `conventions` holds the word lists of papers and
research code they rely on. Each suggestion says why: the words it shares with the
passage it matches best, and where that passage is; and when other code of the repository
is a copy of it (`lmr_author.leaks`: renamed, reformatted, a reference copy kept beside
it), which, since choosing it leaves the copy readable. The annotator still chooses.

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


_EXCERPT = 140  # characters of the passage a suggestion quotes


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
    #: Readable code that is a copy of it: "file:function (similarity 0.98)".
    alike: list[str] = field(default_factory=list)

    def copy_note(self) -> str:
        """ "copy also in X (and N more)" when the repository holds a copy of it, else ""."""
        files = [item.split(" (", 1)[0].rsplit(":", 1)[0] for item in self.alike]
        places = list(dict.fromkeys(files + self.copies))
        if not places:
            return ""
        more = f" and {len(places) - 1} more" if len(places) > 1 else ""
        return f"copy also in {places[0]}{more}"

    def why(self) -> str:
        """One line: the matching terms, and where in the paper."""
        where = f"page {self.page}" + (f", {self.section}" if self.section else "")
        excerpt = " ".join(self.passage.split())
        if len(excerpt) > _EXCERPT:  # cut at a word, and said to be cut
            excerpt = excerpt[:_EXCERPT].rsplit(" ", 1)[0] + " …"
        return f"matches {', '.join(self.terms)} ({where}): “{excerpt}”"


def suggest_goals(
    repo_dir: Path, pages: dict[str, str], *, limit: int = 10, copies: bool = True
) -> list[GoalSuggestion]:
    """The repository's functions ranked by how likely each is the paper's goal, best
    first; with ``copies``, each says what in the repository is a copy of it
    (`mark_copies`, a second look at the repository: the app shows it after)."""
    paper = paper_profile(pages)
    if not paper.passages:
        return []
    repo = scan_repository(Path(repo_dir), paper.terms)
    ranked = [s for s in score_functions(repo, paper) if s.score > 0][:limit]
    suggestions = [_suggestion(scored) for scored in ranked]
    return mark_copies(Path(repo_dir), suggestions) if copies else suggestions


def mark_copies(repo_dir: Path, suggestions: list[GoalSuggestion]) -> list[GoalSuggestion]:
    """Each suggestion with the readable code that is a copy of it (one scan for all)."""
    from dataclasses import replace

    from lmr_author.leaks.copies import find_copies
    from lmr_author.leaks.goal_code import goal_code

    goals = []
    for number, suggestion in enumerate(suggestions):
        try:
            source = (repo_dir / suggestion.goal_file).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        goals += goal_code(
            source,
            suggestion.goal_function,
            suggestion.class_name,
            implementation=number,
            goal_file=suggestion.goal_file,
            line=suggestion.line,
        )
    found = find_copies(repo_dir, goals, paper=False, history=False)
    marked = []
    for number, suggestion in enumerate(suggestions):
        alike = [
            f"{c.file}:{c.function or c.where} ({c.describe()})"
            for c in found
            if c.implementation == number and c.level
        ]
        marked.append(replace(suggestion, alike=alike) if alike else suggestion)
    return marked


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
