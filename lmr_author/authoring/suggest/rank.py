"""The score of each function: how much of the paper's vocabulary it carries, whether its
names are the names the paper gives, which passage it implements, and what research
code's conventions say of it.

score = sqrt(paper words + paper names) x sqrt(best passage) x role x priors, where

* paper words: the function's words (name, class and file weighted up; code, docstring
  and comments saturating as in BM25; not its other strings, which only find its
  passage), each weighted by its salience in the paper's method text and by its rarity
  among the repository's functions;
* paper names: words of the names the paper gives (SimPO, InfoNCE, its title) found in
  the function's, its class's or its file's name, and word pairs of its name that the
  paper writes too (``relation_group``);
* best passage: the BM25 match of the passage it implements best (`passages`), so that
  a function carrying one described step beats one that mentions everything once;
* role: names research code gives its core computations (``*_loss``, ``forward`` of a
  module, ``step`` of an optimizer, ``score``), a name the paper writes as code, and
  computing a quantity the paper's equations define (returning ``delta`` for "δ = ...",
  less for assigning it on the way; the symbol's name in the paper, "the gap δ", joins
  the function's words);
* priors: tiny or very long functions, copies of libraries, functions nothing uses, an
  ``__init__`` that only stores its arguments (one that computes the paper's parameters
  counts in full; ``@overload`` stubs are no functions here, `code_facts`), and
  what scripts are made of around the method (option parsing, by name or by its
  ``add_argument`` calls; plotting, loading, setting up) weigh less; so do functions
  that arrange rather than compute (few lines with operators or math libraries) and
  orchestrators that call many of the repository's own functions; what the scripts'
  own code calls weighs a little more.

A function defined several times (a file copied into each experiment's folder) is one
suggestion, at its best copy's rank, shown as its original (`originals`: not named like
a copy; then the least nested copy, as a rule the original) with the others listed. A
copy kept under another name (``FooReference.step`` beside ``Foo.step``, ``loss_old``)
stays a suggestion of its own, below its original.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from dataclasses import dataclass, replace

from lmr_author.authoring.suggest.code_facts import FunctionFacts, Repository
from lmr_author.authoring.suggest.conventions import (
    DRIVERS,
    FRAMEWORK_ENTRIES,
    IO_WORDS,
    LOOPS,
    NAMING_WORDS,
    OPTION_CALLS,
    ROLE_WORDS,
    SETUP_WORDS,
)
from lmr_author.authoring.suggest.originals import (
    Originals,
    Place,
    copy_key,
    named_alike,
    originals_first,
)
from lmr_author.authoring.suggest.paper_text import PaperProfile
from lmr_author.authoring.suggest.passages import PassageMatch, PassageMatcher
from lmr_author.authoring.suggest.words import name_sequence

K1 = 1.2  # BM25
B = 0.75
ROLE_BONUS = 1.3
PASSAGE_SHARE = 0.5  # the exponent of the best passage; the paper's words get the rest
_IMPLICITLY_CALLED = frozenset(FRAMEWORK_ENTRIES)  # used through their class
_TYPICAL_LINES = 40  # longer functions lose a little (sqrt), shorter ones nothing
MATH_FLOOR = 1.0  # a function that only arranges keeps (floor / (floor + typical)) of its score
MATH_TYPICAL = 0.25  # the share of computing lines that neither gains nor loses
MATH_CAP = 0.6
ENTRY_BONUS = 1.15
LEAF_CALLS = 5  # calls of the repository's own functions an orchestrator makes, beyond a leaf's
LEAF_WEIGHT = 0.3
DEMO_PRIOR = 0.7
# An __init__ that stores its arguments sets nothing up worth a task; one that computes (a
# schedule, the paper's constants from its parameters) may be the goal.
INIT_STORES = 0.5
INIT_COMPUTES = 0.3  # the share of computing lines from which an __init__ weighs in full
NAMED_IN_PAPER = 1.2  # the paper writes the function's name as code: a name given in full
# It computes a quantity the paper defines: returns it (or is named after it), or assigns it
# on the way; a word many of the repository's functions carry says little.
DEFINED_RETURNED = 1.4
DEFINED_ASSIGNED = 1.15
DEFINED_COMMON = 3  # functions that compute it: more and it is no one function's job
# Suggestions whose copies' imports are read to show the original: more than the app
# shows (15) and the benchmark's top 10; reading them for thousands of groups costs seconds.
ORIGINALS_READ = 30


@dataclass(frozen=True)
class Scored:
    function: FunctionFacts
    score: float
    words: float
    names: float
    role: float
    prior: float
    terms: tuple[str, ...]
    match: PassageMatch | None = None
    copies: tuple[str, ...] = ()  # files that define the same function again
    #: Why it stands above or below a copy of it kept under another name, or "".
    standing: str = ""


def score_functions(repo: Repository, paper: PaperProfile) -> list[Scored]:
    """Every parsed function of ``repo`` with its score, best first."""
    functions = [_with_aliases(function, paper) for function in repo.functions]
    if not functions:
        return []
    frequency: Counter[str] = Counter()
    for function in functions:
        frequency.update(set(function.bag) | set(_name_fields(function)))
    total = len(functions)
    average = sum(sum(f.bag.values()) for f in functions) / total or 1.0
    idf = {
        word: math.log(1 + total / (1 + frequency[word])) for word in paper.terms if frequency[word]
    }
    matcher = PassageMatcher(paper.passages)
    computed = Counter(w for f in functions for w in f.computes | f.returns)
    quantities = {w for w in paper.defined if computed[w] <= DEFINED_COMMON}
    entry_calls = _entry_calls(repo)
    defined = frozenset(f.name for f in functions) - _IMPLICITLY_CALLED
    scored = []
    for function in functions:
        lexical, contributions = _paper_words(function, paper, idf, average)
        names = _paper_names(function, paper, idf) + _paper_phrases(function, paper)
        role = _role(function)
        prior = _prior(function, repo) * _code_prior(function, entry_calls, defined)
        if function.name.lower() in paper.identifiers:
            role *= NAMED_IN_PAPER
        role *= _computes_defined(function, quantities)
        match = matcher.best(function)
        passage = match.score if match else 0.0
        score = (lexical + names) ** (1 - PASSAGE_SHARE) * passage**PASSAGE_SHARE * role * prior
        top = tuple(t for _, t in sorted(contributions, reverse=True)[:5])
        scored.append(Scored(function, score, lexical, names, role, prior, top, match))
    scored.sort(key=lambda s: (-s.score, s.function.file, s.function.line))
    originals = Originals(lambda: {source.rel: source.text for source in repo.files})
    return _originals_first(_collapse_copies(scored, originals), originals)


def _place(scored: Scored) -> Place:
    return Place(scored.function.file, scored.function.class_name, scored.function.name)


def _originals_first(scored: list[Scored], originals: Originals) -> list[Scored]:
    """A copy kept under another name ranks below its original, each saying why."""
    buckets: dict[tuple[str, str], list[int]] = {}
    for index, item in enumerate(scored):
        buckets.setdefault(copy_key(_place(item)), []).append(index)
    pairs = [
        (a, b)
        for indices in buckets.values()
        if len(indices) > 1
        for a, b in itertools.combinations(indices, 2)
        if named_alike(_place(scored[a]), _place(scored[b]))
    ]
    if not pairs:
        return scored
    moved, notes = originals_first(scored, _place, pairs, originals)
    return [replace(item, standing=notes.get(i, "")) for i, item in enumerate(moved)]


def _computes_defined(function: FunctionFacts, defined: set[str]) -> float:
    """Whether the function returns (or is named after) or assigns a quantity the paper's
    equations define (``delta = ...`` for "δ = ...")."""
    if defined & function.returns:
        return DEFINED_RETURNED
    return DEFINED_ASSIGNED if defined & function.computes else 1.0


def _with_aliases(function: FunctionFacts, paper: PaperProfile) -> FunctionFacts:
    """A function that computes a symbol the paper names (δ, "the gap score") carries
    the name's words too, once each."""
    named = set().union(*(paper.aliases.get(w, ()) for w in function.computes))
    if not named:
        return function
    return replace(function, bag=function.bag + Counter(named - function.bag.keys()))


def _entry_calls(repo: Repository) -> Counter[str]:
    """Names that the scripts' own code calls: top-level statements (a notebook-style
    script, its ``if __name__ == "__main__"`` block) and the drivers and loops (``main``,
    ``train``, ``run_*``)."""
    called = Counter(repo.script_calls)
    for function in repo.functions:
        name = function.name.lower()
        first = name_sequence(function.name)[:1]
        if name in DRIVERS or name in LOOPS or (first and first[0] in LOOPS):
            called.update(function.calls)
    return called


def _code_prior(
    function: FunctionFacts, entry_calls: Counter[str], defined: frozenset[str]
) -> float:
    """What the code says of a function whatever the paper: one that computes (operators,
    math libraries) more than it arranges, one that the scripts call."""
    math_share = min(function.math, MATH_CAP)
    prior = (MATH_FLOOR + math_share) / (MATH_FLOOR + MATH_TYPICAL)
    if entry_calls[function.name] and function.name not in _IMPLICITLY_CALLED:
        prior *= ENTRY_BONUS
    if function.name == "__init__":
        prior *= INIT_STORES + (1 - INIT_STORES) * min(function.math / INIT_COMPUTES, 1.0)
    delegated = len(function.calls & defined)
    if delegated > LEAF_CALLS:
        prior *= ((1 + LEAF_CALLS) / (1 + delegated)) ** LEAF_WEIGHT
    return prior


def _name_fields(function: FunctionFacts) -> dict[str, float]:
    """Words of the function's names with their weights (function 3, class 2, file 1)."""
    fields: dict[str, float] = {}
    for weight, names in ((1.0, function.file_words), (2.0, function.class_words)):
        for word in names:
            fields[word] = max(fields.get(word, 0.0), weight)
    for word in function.name_words:
        fields[word] = 3.0
    return fields


def _paper_words(
    function: FunctionFacts, paper: PaperProfile, idf: dict[str, float], average: float
) -> tuple[float, list[tuple[float, str]]]:
    length = sum(function.bag.values())
    norm = K1 * (1 - B + B * length / average)
    fields = _name_fields(function)
    contributions = []
    # In a fixed order and summed exactly: a set's order changes with the hash seed, and
    # a float sum with its order, which broke ties between equal functions at random.
    for word in sorted(set(function.bag) | set(fields)):
        weight = idf.get(word)
        if weight is None:
            continue
        tf = function.bag.get(word, 0)
        body = tf * (K1 + 1) / (tf + norm) if tf else 0.0
        value = paper.terms[word] * weight * (body + fields.get(word, 0.0))
        contributions.append((value, word))
    return math.fsum(v for v, _ in contributions) / 10, contributions  # /10: names' scale


def _paper_names(function: FunctionFacts, paper: PaperProfile, idf: dict[str, float]) -> float:
    """The best-matching name counts fully, the others a third: one name says enough."""
    values = sorted(
        (
            paper.names[word] * weight * idf.get(word, 1.0) / 3
            for word, weight in _name_fields(function).items()
            if word in paper.names
        ),
        reverse=True,
    )
    return values[0] + sum(values[1:]) / 3 if values else 0.0


def _paper_phrases(function: FunctionFacts, paper: PaperProfile) -> float:
    """Names that say what the paper says in so many words (``relation_group``)."""
    sequence = function.sequence
    total = 0.0
    for pair in itertools.pairwise(sequence):
        total += paper.phrases.get(pair, 0.0) or paper.phrases.get(pair[::-1], 0.0) / 2
    return total


def _role(function: FunctionFacts) -> float:
    bases = FRAMEWORK_ENTRIES.get(function.name)
    if bases and bases & set(function.base_words):
        # an optimizer's step is its algorithm; a module is one of many
        return ROLE_BONUS * (ROLE_BONUS if function.name == "step" else 1.0)
    if ROLE_WORDS & set(function.name_words):
        return ROLE_BONUS
    return 1.0


def _prior(function: FunctionFacts, repo: Repository) -> float:
    prior = 1.0
    if function.lines <= 3:
        prior *= 0.3
    elif function.lines <= 6:
        prior *= 0.85
    elif function.lines > _TYPICAL_LINES:
        prior *= math.sqrt(_TYPICAL_LINES / function.lines)
    if function.is_vendored:
        prior *= 0.2
    if function.is_demo:
        prior *= DEMO_PRIOR
    if function.is_figure:
        prior *= 0.5
    used_as = function.name
    implicit = function.name in _IMPLICITLY_CALLED or function.name == "__init__"
    if implicit and function.class_name:
        used_as = function.class_name.rsplit(".", 1)[-1]
    if repo.uses[used_as] <= 1:
        prior *= 0.7
    if function.name.startswith("_") and not function.name.startswith("__"):
        prior *= 0.9
    name = function.name.lower()
    first = set(name_sequence(function.name)[:1])
    if name in DRIVERS or name.startswith("parse_arg") or function.calls & OPTION_CALLS:
        prior *= 0.4  # scripts' drivers, and functions that declare options
    elif name in LOOPS:
        prior *= 0.7
    if first & IO_WORDS:
        prior *= 0.5
    elif set(name_sequence(function.name)[-1:]) & NAMING_WORDS:
        prior *= 0.6
    elif first & SETUP_WORDS:
        prior *= 0.8
    return prior


def _collapse_copies(scored: list[Scored], originals: Originals) -> list[Scored]:
    """One entry per function and its copies: a method of a class of the same name (a
    class is copied and edited, as a whole: a standalone version, one per experiment), or
    a function of the same name, words and size."""
    groups: dict[tuple[str, str], list[list[Scored]]] = {}
    order: list[list[Scored]] = []
    for item in scored:
        key = (item.function.name, item.function.class_name.rsplit(".", 1)[-1])
        for group in groups.setdefault(key, []):
            if key[1] or _same_words(group[0].function, item.function):
                group.append(item)
                break
        else:
            group = [item]
            groups[key].append(group)
            order.append(group)
    collapsed = []
    for position, group in enumerate(order):
        # Who imports what is read for the groups that can be shown (the rest are many).
        places = [_place(s) for s in group]
        shown = group[originals.first_original(places, imports=position < ORIGINALS_READ)]
        others = tuple(s.function.file for s in group if s is not shown)
        collapsed.append(replace(shown, score=group[0].score, copies=others))
    return collapsed


def _same_words(first: FunctionFacts, second: FunctionFacts) -> bool:
    """A copy, perhaps edited a little; not a second implementation of the same idea."""
    a, b = set(first.bag) | set(first.said), set(second.bag) | set(second.said)
    sizes = sorted((first.lines, second.lines))
    return len(a & b) >= 0.9 * max(len(a | b), 1) and sizes[0] >= 0.8 * sizes[1]
