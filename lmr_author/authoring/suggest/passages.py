"""Which passage of the paper a function implements: BM25 of the function's words (its
names weighted up) and of its strings against each passage, times the passage's weight
(method sections, equations and algorithm boxes count more).

Each paper word keeps its BM25 weight in every passage that holds it (an inverted
index of numpy arrays), so a function's scores over all passages are one ``bincount``.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from dataclasses import dataclass

import numpy as np

from lmr_author.authoring.suggest.code_facts import FunctionFacts
from lmr_author.authoring.suggest.paper_text import Passage
from lmr_author.authoring.suggest.words import words

K1 = 1.2
B = 0.75
_NAME_WEIGHT = 3  # a word of the function's or its class's name; body words count up to it


@dataclass(frozen=True)
class PassageMatch:
    passage: Passage
    score: float
    terms: list[str]  # the words that match most, best first


class PassageMatcher:
    """Passages are matched alone and two by two (a description often runs across the
    cut between two passages)."""

    def __init__(self, paper_passages: list[Passage]) -> None:
        passages = list(paper_passages)
        for first, second in itertools.pairwise(paper_passages):
            if first.section == second.section:
                text = first.text + "\n" + second.text
                weight = max(first.weight, second.weight)
                passages.append(Passage(first.page, first.section, text, weight))
        self.passages = passages
        self.documents = [Counter(words(p.text)) for p in passages]
        lengths = [sum(d.values()) for d in self.documents]
        average = sum(lengths) / max(len(lengths), 1) or 1.0
        postings: dict[str, list[tuple[int, float]]] = {}
        for index, document in enumerate(self.documents):
            norm = K1 * (1 - B + B * lengths[index] / average)
            for word, tf in document.items():
                postings.setdefault(word, []).append((index, tf * (K1 + 1) / (tf + norm)))
        total = len(passages)
        self.idf: dict[str, float] = {}
        self.index: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        for word, found in postings.items():
            idf = math.log(1 + (total - len(found) + 0.5) / (len(found) + 0.5))
            self.idf[word] = idf
            where = np.fromiter((i for i, _ in found), dtype=np.int64, count=len(found))
            value = np.fromiter((v * idf for _, v in found), dtype=np.float64, count=len(found))
            self.index[word] = (where, value)
        self.weights = np.array([p.weight for p in passages], dtype=np.float64)

    def best(self, function: FunctionFacts) -> PassageMatch | None:
        """The passage ``function`` matches best, or None when no word matches."""
        # its strings too: a prompt or a message says which passage the function is about
        query = {  # in a fixed order: the scores' float sums must not follow the hash seed
            w: min(function.bag.get(w, 0) + function.said.get(w, 0), _NAME_WEIGHT)
            for w in sorted(function.bag.keys() | function.said.keys())
            if w in self.index
        }
        for word in function.name_words + function.class_words:
            if word in self.index:
                query[word] = _NAME_WEIGHT
        if not query:
            return None
        where = np.concatenate([self.index[w][0] for w in query])
        value = np.concatenate([self.index[w][1] * weight for w, weight in query.items()])
        scores = np.bincount(where, weights=value, minlength=len(self.passages)) * self.weights
        best = int(np.argmax(scores))  # the first of equal ones
        in_passage = self.documents[best]
        terms = sorted((w for w in query if w in in_passage), key=lambda w: -query[w] * self.idf[w])
        return PassageMatch(self.passages[best], float(scores[best]), terms[:5])
