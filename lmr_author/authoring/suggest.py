"""Goal suggestions: which functions of the repository implement what the paper describes.

Each function becomes a bag of words (its name and class split at ``snake_case`` and
``camelCase`` boundaries, weighted up; its docstring; the identifiers of its body); the
paper becomes passages (paragraphs of paper.json's pages). A function's score is its
best BM25 match against the passages, with passages of method sections, equations and
algorithm boxes weighted up, where the paper states what a goal function computes.
BM25 is a few lines here (no ranking library is a dependency); k1 = 1.2, b = 0.75.
The "why" is the matching terms and the passage. The annotator still chooses.
"""

from __future__ import annotations

import ast
import math
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

_WORD = re.compile(r"[A-Za-z][a-z]+|[A-Z]+(?![a-z])|\d+")
_SECTION = re.compile(r"^\s*(\d+(\.\d+)*\.?)\s+([A-Z][A-Za-z][^=()]{1,70})$")
_METHOD_HINT = re.compile(
    r"\b(method|approach|algorithm|objective|loss|model|proposed|our|formulation)\b", re.I
)
_EQUATION = re.compile(r"\(\d{1,2}\)\s*$|[=∑∏√]|\\frac|argmax|argmin", re.MULTILINE)
_STOP_WORDS = (
    "a an and are as at be by for from has have in is it its of on or that the this "
    "to was were will with we our which can each these their then than also using use "
    "used into self cls return none true false def args kwargs not if else elif while "
    "range len list dict str int float print import tmp val var "
)
_STOP = frozenset(_STOP_WORDS.split())
_SKIP_DIRS = frozenset({"test", "tests", "unit_test", "docs", "examples", ".git", "build"})
K1 = 1.2
B = 0.75


def words(text: str) -> list[str]:
    """Lower-case words of ``text``; identifiers split (``robustScore_v2`` -> robust, score)."""
    found = []
    for token in _WORD.findall(text):
        word = token.lower()
        if len(word) < 3 or word in _STOP or word.isdigit():
            continue
        found.append(word[:-1] if word.endswith("s") and len(word) > 4 else word)
    return found


@dataclass(frozen=True)
class Passage:
    page: str
    section: str
    text: str
    weight: float


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

    def why(self) -> str:
        """One line: the matching terms, and where in the paper."""
        where = f"page {self.page}" + (f", {self.section}" if self.section else "")
        excerpt = " ".join(self.passage.split())[:140]
        return f"matches {', '.join(self.terms)} ({where}): “{excerpt}”"


def paper_passages(pages: dict[str, str], *, lines_per_passage: int = 8) -> list[Passage]:
    """Passages of the paper (a few lines each, never across a section heading)."""
    passages: list[Passage] = []
    section = ""
    for page in sorted(pages, key=lambda p: int(p) if p.isdigit() else 0):
        chunk: list[str] = []
        for line in pages[page].splitlines():
            heading = _SECTION.match(line)
            if heading or not line.strip() or len(chunk) >= lines_per_passage:
                _flush(passages, chunk, page, section)
            if heading:
                section = heading.group(3).strip()
                if re.match(r"(references|bibliography)\b", section, re.I):
                    return passages  # nothing after the references is the method
            if line.strip():
                chunk.append(line)
        _flush(passages, chunk, page, section)
    return passages


def _flush(passages: list[Passage], chunk: list[str], page: str, section: str) -> None:
    text = "\n".join(chunk).strip()
    chunk.clear()
    if not text:
        return
    weight = 1.0
    if _METHOD_HINT.search(section):
        weight += 0.5
    if _EQUATION.search(text) or text.lower().startswith("algorithm"):
        weight += 0.5
    passages.append(Passage(page, section, text, weight))


@dataclass(frozen=True)
class _Function:
    file: str
    name: str
    class_name: str
    line: int
    bag: Counter[str]


def repository_functions(repo_dir: Path) -> list[_Function]:
    """Each function of the repository with its bag of words."""
    found = []
    for path in sorted(repo_dir.rglob("*.py")):
        rel = path.relative_to(repo_dir)
        if _SKIP_DIRS & set(rel.parts[:-1]) or rel.name.startswith("test_"):
            continue
        try:
            tree = ast.parse(path.read_bytes())
        except (SyntaxError, ValueError, OSError):
            continue
        found += _functions_of(tree, rel.as_posix())
    return found


def _functions_of(tree: ast.Module, rel: str) -> list[_Function]:
    found = []

    def visit(nodes: Iterable[ast.stmt], owner: str) -> None:
        for node in nodes:
            if isinstance(node, ast.ClassDef):
                visit(node.body, f"{owner}.{node.name}" if owner else node.name)
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                if node.name.startswith("__") and node.name != "__call__":
                    continue
                bag: Counter[str] = Counter()
                for word in words(node.name) + words(owner):
                    bag[word] += 3
                bag.update(words(ast.get_docstring(node) or ""))
                for child in ast.walk(node):
                    if isinstance(child, ast.Name):
                        bag.update(words(child.id))
                    elif isinstance(child, ast.Attribute):
                        bag.update(words(child.attr))
                if bag:
                    found.append(_Function(rel, node.name, owner, node.lineno, bag))

    visit(tree.body, "")
    return found


def suggest_goals(
    repo_dir: Path, pages: dict[str, str], *, limit: int = 10
) -> list[GoalSuggestion]:
    """The repository's functions ranked by how well they match the paper, best first."""
    passages = paper_passages(pages)
    functions = repository_functions(repo_dir)
    if not passages or not functions:
        return []
    documents = [Counter(words(p.text)) for p in passages]
    lengths = [sum(d.values()) for d in documents]
    average = sum(lengths) / len(lengths) or 1.0
    frequency: Counter[str] = Counter()
    for document in documents:
        frequency.update(document.keys())
    total = len(documents)

    def idf(term: str) -> float:
        n = frequency[term]
        return math.log(1 + (total - n + 0.5) / (n + 0.5))

    suggestions = []
    for function in functions:
        empty: list[tuple[float, str]] = []
        best = (0.0, -1, empty)
        for index, document in enumerate(documents):
            contributions = []
            norm = K1 * (1 - B + B * lengths[index] / average)
            for term, weight in function.bag.items():
                tf = document.get(term, 0)
                if tf:
                    score = idf(term) * tf * (K1 + 1) / (tf + norm)
                    contributions.append((score * min(weight, 3), term))
            score = sum(c for c, _ in contributions) * passages[index].weight
            if score > best[0]:
                best = (score, index, contributions)
        score, index, contributions = best
        if index < 0:
            continue
        passage = passages[index]
        terms = [term for _, term in sorted(contributions, reverse=True)[:5]]
        suggestions.append(
            GoalSuggestion(
                goal_file=function.file,
                goal_function=function.name,
                class_name=function.class_name,
                line=function.line,
                score=round(score, 3),
                terms=terms,
                passage=passage.text,
                page=passage.page,
                section=passage.section,
            )
        )
    suggestions.sort(key=lambda s: (-s.score, s.goal_file, s.line))
    return suggestions[:limit]
