"""Goal suggestions: which functions of the repository implement what the paper describes.

The paper (`paper_text`) gives passages under their sections, the salience of its words
in its method text, the names it gives and the quantities its equations define
(`quantities`); the code (`code_facts`) gives each function's names, words, size, uses
and what it computes; `passages` finds the passage each function
implements best; `rank` scores them; `conventions` holds the word lists of papers and
research code they rely on. Each suggestion says why: the words it shares with the
passage it matches best, and where that passage is; and when other code of the repository
is a copy of it (`lmr_author.leaks`: renamed, reformatted, a reference copy kept beside
it), which, since choosing it leaves the copy readable. When two suggestions are copies
of each other, the original ranks above the copy and both say why (`originals`: the
copy is named like one, nothing imports it, it sits beside the package that holds the
original). The annotator still chooses.

``benchmarks/bench_suggest.py`` measures how often the goal is among the first
suggestions, on the published benchmark and on a held-out manifest.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from lmr_author.authoring.suggest.code_facts import python_texts, scan_repository
from lmr_author.authoring.suggest.originals import Originals, Place, originals_first
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
    #: Why it ranks above (the original) or below (a copy) another suggestion, or "".
    standing: str = ""

    def copy_note(self) -> str:
        """ "copy also in X (and N more)" when the repository holds a copy of it, else ""."""
        files = [item.split(" (", 1)[0].rsplit(":", 1)[0] for item in self.alike]
        places = list(dict.fromkeys(files + self.copies))
        if not places:
            return ""
        more = f" and {len(places) - 1} more" if len(places) > 1 else ""
        return f"copy also in {places[0]}{more}"

    def why(self) -> str:
        """One line: why it ranks where it does against a copy of it, if it has one; the
        matching terms, and where in the paper."""
        where = f"page {self.page}" + (f", {self.section}" if self.section else "")
        excerpt = " ".join(self.passage.split())
        if len(excerpt) > _EXCERPT:  # cut at a word, and said to be cut
            excerpt = excerpt[:_EXCERPT].rsplit(" ", 1)[0] + " …"
        standing = f"{self.standing}; " if self.standing else ""
        return f"{standing}matches {', '.join(self.terms)} ({where}): “{excerpt}”"


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
    found = [c for c in find_copies(repo_dir, goals, paper=False, history=False) if c.level]
    marked = []
    for number, suggestion in enumerate(suggestions):
        alike = [
            f"{c.file}:{c.function or c.where} ({c.describe()})"
            for c in found
            if c.implementation == number
        ]
        marked.append(replace(suggestion, alike=alike) if alike else suggestion)
    # Two suggestions that are copies of each other: the original goes first.
    places = {_place(s): index for index, s in enumerate(suggestions)}
    pairs = [
        (c.implementation, places[copy])
        for c in found
        for copy in _places_of(c.file, c.function)
        if copy in places
    ]
    if not pairs:
        return marked

    originals = Originals(lambda: dict(python_texts(repo_dir)))
    moved, notes = originals_first(marked, _place, pairs, originals)
    return [
        replace(item, standing=notes[i]) if i in notes else item for i, item in enumerate(moved)
    ]


def _place(suggestion: GoalSuggestion) -> Place:
    return Place(suggestion.goal_file, suggestion.class_name, suggestion.goal_function)


def _places_of(file: str, qualified: str) -> list[Place]:
    """The places a copy's qualified name ("Class.method", "function") can be."""
    if not qualified:
        return []
    owner, _, name = qualified.rpartition(".")
    return [Place(file, owner, name)]


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
        standing=scored.standing,
    )
