"""Words shared by papers and code, so that "SimPO", ``simpo_loss`` and ``SimPOTrainer``
meet on ``simpo``.

A token becomes its lower-case whole (``infonce``) and, when it is written in camelCase
or with digits, its parts too (``info``, ``nce``); ``snake_case`` is split first. Words
shorter than three letters, numbers and stop words (English and Python's own) are
dropped, and a light stemmer folds plurals (``losses`` -> ``loss``).
"""

from __future__ import annotations

import itertools
import re
from functools import lru_cache

from lmr_author.authoring.suggest.conventions import GREEK_LETTERS, STOP_WORDS

_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9]*")
_PART = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[A-Z]")
_GREEK = {
    **{0x3B1 + i: f" {name} " for i, name in enumerate(GREEK_LETTERS)},
    **{0x391 + i: f" {name} " for i, name in enumerate(GREEK_LETTERS)},
    0x3F5: " epsilon ",
    0x3D5: " phi ",
    0x3D1: " theta ",
}


@lru_cache(maxsize=200_000)
def token_words(token: str) -> tuple[str, ...]:
    """The words of one identifier or written word (see the module docstring)."""
    found: list[str] = []
    for piece in token.split("_"):
        if not piece:
            continue
        whole = stem(piece.lower())
        if _keep(whole):
            found.append(whole)
        if piece.islower() or piece[1:].islower() or piece.isupper():
            continue  # one word: "loss", "Loss", "KL"
        parts = [p.lower() for p in _PART.findall(piece)]
        if len(parts) > 1:
            found.extend(stem(p) for p in parts if _keep(p))
            # "SimPOTrainer" is written as the paper's SimPO followed by a word (but
            # "LLaMA" is no "lla" and "lama")
            joined = (
                a + b
                for a, b in itertools.pairwise(parts)
                if min(len(a), len(b)) >= 2 and max(len(a), len(b)) >= 3
            )
            found.extend(stem(j) for j in joined if _keep(j) and j != whole)
    return tuple(found)


@lru_cache(maxsize=200_000)
def name_sequence(identifier: str) -> tuple[str, ...]:
    """The words of an identifier in order, parts only (for phrases: word pairs)."""
    return tuple(
        stem(p.lower())
        for piece in identifier.split("_")
        for p in _PART.findall(piece)
        if _keep(p.lower())
    )


def words(text: str) -> list[str]:
    """Lower-case words of ``text``; identifiers split (``robustScore_v2`` -> robustscore,
    robust, score); Greek letters spelt out (β -> beta), as code names them."""
    found: list[str] = []
    if not text.isascii():
        text = text.translate(_GREEK)
    for token in _TOKEN.findall(text):
        found.extend(token_words(token))
    return found


def stem(word: str) -> str:
    """Plural folding only: what research code and prose disagree on most."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("sses", "ches", "shes", "xes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _keep(word: str) -> bool:
    return len(word) >= 3 and word not in STOP_WORDS and not word.isdigit()
