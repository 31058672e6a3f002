"""The quantities a paper defines, and the names it gives them: what a reader looks for in
the code first ("δ = ..." is computed by the function that assigns ``delta``).

* defined: the head of the left-hand side of a definition in the method's text
  (``PUCT(s, a) = Q(s, a) + ...``, ``δ =`` over a fraction, ``L_DPO = ...``, ``v ← ...``),
  spelt as code spells it (Greek letters by name), and an acronym's base (``uct`` of
  PUCT); a setting (``τ = 1.0,``) or an example's text (``query = "..."``) defines
  nothing;
* aliases: the words the paper names a symbol with ("the empathy gap score δ",
  "Empathy Gap Score (δ)"), so that code naming the symbol (``delta``) meets the prose
  that names the quantity ("gap"); and the words of an acronym the paper spells out
  ("Predictor Upper Confidence Tree Bound (PUCT)"), for code that names it (``uct``).

Passages are already plain text (`paper_text` spells LaTeX's Greek letters out and drops
its commands).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable

from lmr_author.authoring.suggest.conventions import GREEK_LETTERS, PROSE
from lmr_author.authoring.suggest.words import words

# The head of a left-hand side: a name or a Greek letter, then subscripts, superscripts,
# arguments and primes, then the sign of a definition (not a comparison).
_DEFINITION = re.compile(
    r"(?<![\w=<>!])([A-Za-z][A-Za-z0-9]*|[\u0370-\u03ff\u2206])"
    r"(?:\s*[_^]\s*(?:\{[^{}=\n]{0,30}\}|[A-Za-z0-9*]{1,6}))*"
    r"(?:\s*\([^()=\n]{0,40}\))?[*′']*\s*"
    r"(?::=|≜|≡|←|(?<![<>!=:])=(?!=))"
    r"(?P<rest>[^\n]{0,40})"
)
_SETTING = re.compile(r"\s*[-−]?\s*\d[\d.,]*\s*(?:%|[,;)]|[A-Za-z]{2,}|$)")  # "τ = 1.0 for"
_QUOTED = re.compile(r"\s*[\"'“‘«]")  # query = "Virginia's ...": an example's text, not a quantity
_GREEK = "|".join(GREEK_LETTERS) + r"|[\u0370-\u03ff\u2206]"
# "the empathy gap score δ", "Empathy Gap Score (δ)", "gap score $ delta $": the two
# words before the symbol
_NAMED_SYMBOL = re.compile(
    r"((?:[A-Za-z][A-Za-z-]+\s+)?[A-Za-z][A-Za-z-]+)\s*[($]\s*(" + _GREEK + r")\s*[$)]"
)
_NAMED_SYMBOL_PLAIN = re.compile(
    r"((?:[A-Za-z][A-Za-z-]+\s+)?[A-Za-z][A-Za-z-]+)\s+([\u0370-\u03ff\u2206])(?!\w)"
)
# "Predictor Upper Confidence Tree Bound (PUCT)": an acronym in parentheses after its words
_ACRONYM = re.compile(r"((?:[A-Za-z][\w'’-]*\s+){1,10})\(\s*([A-Z][A-Za-z]{1,8})\s*\)")
_ALIAS_MIN = 2  # a word names the symbol when the paper writes it before it this often


def defined_quantities(texts: Iterable[str]) -> dict[str, float]:
    """Words of the quantities ``texts`` define, each with the log of how often."""
    counts: Counter[str] = Counter()
    for text in texts:
        for match in _DEFINITION.finditer(text):
            before = text[max(match.start() - 40, 0) : match.start()].rstrip()
            option = before.endswith((",", "[")) and not before.endswith("\\[")
            if option or _SETTING.match(match.group("rest")) or _QUOTED.match(match.group("rest")):
                continue  # a setting, or a key of a list of options (LaTeX's colorlinks=)
            head = match.group(1)
            counts.update(set(words(head)) | _acronym_variants(head))
    return {word: math.log1p(count) for word, count in counts.items()}


def _acronym_variants(head: str) -> set[str]:
    """An acronym's variants without its first or last letter: code often names the base
    quantity the paper's acronym qualifies (``uct`` for PUCT, ``mse`` for RMSE)."""
    if not (head.isupper() and head.isalpha() and len(head) >= 4):
        return set()
    return {head[1:].lower(), head[:-1].lower()}


def symbol_aliases(texts: Iterable[str], symbols: Iterable[str]) -> dict[str, frozenset[str]]:
    """For each symbol word (``delta``) that ``texts`` name, the words naming it (``gap``,
    ``score``); only symbols in ``symbols`` (the defined ones) and Greek letters."""
    wanted = set(symbols) | set(GREEK_LETTERS)
    found: dict[str, Counter[str]] = {}
    for text in texts:
        for pattern in (_NAMED_SYMBOL, _NAMED_SYMBOL_PLAIN):
            for match in pattern.finditer(text):
                symbol = words(match.group(2))
                if len(symbol) != 1 or symbol[0] not in wanted:
                    continue
                named = {w for w in words(match.group(1)) if w not in PROSE and w != symbol[0]}
                found.setdefault(symbol[0], Counter()).update(named)
    aliases = {
        symbol: frozenset(w for w, n in named.items() if n >= _ALIAS_MIN)
        for symbol, named in found.items()
    }
    return {symbol: named for symbol, named in aliases.items() if named}


def acronym_aliases(texts: Iterable[str]) -> dict[str, frozenset[str]]:
    """For each acronym ``texts`` spell out (and its variants, `_acronym_variants`), the
    words of its long form: code that computes ``uct`` meets "upper confidence tree"."""
    found: dict[str, set[str]] = {}
    for text in texts:
        for match in _ACRONYM.finditer(text):
            short = match.group(2)
            if sum(c.isupper() for c in short) < 2:
                continue  # "(Adam)" is a name, not an acronym
            long_form = _long_form(short, match.group(1).split())
            if long_form:
                named = {w for w in words(" ".join(long_form)) if w not in PROSE}
                for key in {short.lower()} | _acronym_variants(short):
                    found.setdefault(key, set()).update(named - {key})
    return {key: frozenset(named) for key, named in found.items() if named}


def _long_form(short: str, before: list[str]) -> list[str]:
    """The fewest words before an acronym whose letters spell it (Schwartz and Hearst: its
    letters in order, right to left, its first letter starting a word); [] when none do."""
    letters = [c.lower() for c in short if c.isalpha()]
    candidate = [w.lower() for w in before[-(len(letters) + 3) :]]
    text = " ".join(candidate)
    position = len(text)
    for index in range(len(letters) - 1, -1, -1):
        position = text.rfind(letters[index], 0, position)
        while index == 0 and position > 0 and text[position - 1].isalnum():
            position = text.rfind(letters[index], 0, position)
        if position < 0:
            return []
    start = text[:position].count(" ")
    return before[len(before) - len(candidate) + start :]
