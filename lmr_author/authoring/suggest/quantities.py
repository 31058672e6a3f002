"""The quantities a paper defines, and the names it gives them: what a reader looks for in
the code first ("δ = ..." is computed by the function that assigns ``delta``).

* defined: the head of the left-hand side of a definition in the method's text
  (``PUCT(s, a) = Q(s, a) + ...``, ``δ =`` over a fraction, ``L_DPO = ...``, ``v ← ...``),
  spelt as code spells it (Greek letters by name); a setting (``τ = 1.0,``) defines
  nothing;
* aliases: the words the paper names a symbol with ("the empathy gap score δ",
  "Empathy Gap Score (δ)"), so that code naming the symbol (``delta``) meets the prose
  that names the quantity ("gap").

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
_GREEK = "|".join(GREEK_LETTERS) + r"|[\u0370-\u03ff\u2206]"
# "the empathy gap score δ", "Empathy Gap Score (δ)", "gap score $ delta $": the two
# words before the symbol
_NAMED_SYMBOL = re.compile(
    r"((?:[A-Za-z][A-Za-z-]+\s+)?[A-Za-z][A-Za-z-]+)\s*[($]\s*(" + _GREEK + r")\s*[$)]"
)
_NAMED_SYMBOL_PLAIN = re.compile(
    r"((?:[A-Za-z][A-Za-z-]+\s+)?[A-Za-z][A-Za-z-]+)\s+([\u0370-\u03ff\u2206])(?!\w)"
)
_ALIAS_MIN = 2  # a word names the symbol when the paper writes it before it this often


def defined_quantities(texts: Iterable[str]) -> dict[str, float]:
    """Words of the quantities ``texts`` define, each with the log of how often."""
    counts: Counter[str] = Counter()
    for text in texts:
        for match in _DEFINITION.finditer(text):
            before = text[max(match.start() - 40, 0) : match.start()].rstrip()
            option = before.endswith((",", "[")) and not before.endswith("\\[")
            if option or _SETTING.match(match.group("rest")):
                continue  # a setting, or a key of a list of options (LaTeX's colorlinks=)
            counts.update(set(words(match.group(1))))
    return {word: math.log1p(count) for word, count in counts.items()}


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
