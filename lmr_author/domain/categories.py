"""The nine task categories of the LMR-Bench paper (Table 4) and how to read free text.

Published info.json files spell some categories longer than the paper's table
("Training Objectives & Optimization Techniques") and sometimes hold free text
("loss function") or nothing. `match_category` says which canonical category a text
means, whether that reading is certain enough for ``validate --fix`` to apply it, and
otherwise which category is nearest, so the validator can name it in a warning.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Literal

#: The canonical names, in the order of the paper's Table 4.
CATEGORIES: tuple[str, ...] = (
    "Feature Learning & Representation",
    "Neural Network Architectures",
    "Prompt Engineering & Instruction Tuning",
    "Information Extraction",
    "Data Augmentation",
    "Training Objectives & Optimization",
    "Decoding & Search Strategies",
    "Evaluation Metrics",
    "Interpretability & Explainability",
)

#: Longer spellings used by the published tasks (and the paper's own appendix E).
#: They are accepted as they are: no finding, and `canonical_category` maps them.
PUBLISHED_VARIANTS: dict[str, str] = {
    "Training Objectives & Optimization Techniques": "Training Objectives & Optimization",
    "Information Extraction & Knowledge Integration": "Information Extraction",
    "Data Augmentation & Generation": "Data Augmentation",
}

#: Free-text spellings of the published tasks and the category the report counts them in
#: (Figure 2). Unlike `PUBLISHED_VARIANTS` they stay validator findings: the map only
#: says where the paper's figure puts them, judged from each task's goal function.
REPORT_SPELLINGS: dict[str, str] = {
    "loss function": "Training Objectives & Optimization",  # 05-SimPO, 28-SPIN: losses
    "Evaluation Metrics & Benchmarking": "Evaluation Metrics",  # 11-moverscore
    "Neural Network Architectures & Modules": "Neural Network Architectures",  # 19-NSA, 25
}


def report_category(text: str | None) -> str | None:
    """The category of the nine that the report counts ``text`` in; None when missing
    or when free text is not in `REPORT_SPELLINGS` (a nearest guess is never counted)."""
    if text is not None and text.strip() in REPORT_SPELLINGS:
        return REPORT_SPELLINGS[text.strip()]
    return canonical_category(text)


#: Word stems that point at a category when the text is free-form.
_KEYWORDS: dict[str, tuple[str, ...]] = {
    "Feature Learning & Representation": (
        "feature",
        "represent",
        "embedding",
        "encod",
        "vector",
        "contrastive",
    ),
    "Neural Network Architectures": (
        "architect",
        "attention",
        "layer",
        "network",
        "transformer",
        "module",
        "block",
        "head",
    ),
    "Prompt Engineering & Instruction Tuning": (
        "prompt",
        "instruction",
        "in-context",
        "few-shot",
        "chain-of-thought",
        "tuning",
    ),
    "Information Extraction": (
        "extract",
        "knowledge",
        "entity",
        "relation",
        "retriev",
        "parsing",
    ),
    "Data Augmentation": ("augment", "generation", "synthetic", "dataset", "data", "sample"),
    "Training Objectives & Optimization": (
        "loss",
        "objective",
        "optimi",
        "training",
        "gradient",
        "reward",
        "preference",
        "regulari",
    ),
    "Decoding & Search Strategies": ("decod", "search", "beam", "sampling", "inference"),
    "Evaluation Metrics": ("metric", "evaluat", "score", "accuracy", "bleu", "rouge"),
    "Interpretability & Explainability": (
        "interpret",
        "explain",
        "probing",
        "probe",
        "attribution",
        "saliency",
        "activation",
    ),
}

MatchKind = Literal["canonical", "variant", "spelling", "nearest", "missing"]


@dataclass(frozen=True)
class CategoryMatch:
    """How a category text relates to the nine canonical categories.

    ``kind`` is ``canonical`` (exactly a canonical name), ``variant`` (a published long
    spelling), ``spelling`` (the same name up to case, spaces, "and" for "&": safe to
    rewrite), ``nearest`` (free text: ``category`` is only a guess) or ``missing``.
    """

    text: str | None
    category: str | None
    kind: MatchKind

    @property
    def accepted(self) -> bool:
        """True when the text needs no finding at all."""
        return self.kind in ("canonical", "variant")

    @property
    def fixable(self) -> bool:
        """True when rewriting the text to ``category`` is an unambiguous repair."""
        return self.kind == "spelling" and self.category is not None


def _normal(text: str) -> str:
    text = text.lower().replace("&", " and ")
    return " ".join(re.findall(r"[a-z0-9]+", text))


_BY_NORMAL: dict[str, str] = {_normal(name): name for name in CATEGORIES}
_BY_NORMAL.update({_normal(variant): name for variant, name in PUBLISHED_VARIANTS.items()})


def canonical_category(text: str | None) -> str | None:
    """The canonical category ``text`` certainly means, or None when it is not certain."""
    match = match_category(text)
    return match.category if match.kind != "nearest" else None


def match_category(text: str | None) -> CategoryMatch:
    """Read a category text (see `CategoryMatch`)."""
    if text is None or not text.strip():
        return CategoryMatch(text, None, "missing")
    if text in CATEGORIES:
        return CategoryMatch(text, text, "canonical")
    if text in PUBLISHED_VARIANTS:
        return CategoryMatch(text, PUBLISHED_VARIANTS[text], "variant")
    exact = _BY_NORMAL.get(_normal(text))
    if exact is not None:
        return CategoryMatch(text, exact, "spelling")
    return CategoryMatch(text, nearest_category(text), "nearest")


def suggest_category(text: str) -> str | None:
    """The category that words of ``text`` (e.g. an instruction) point at, or None."""
    words = _normal(text).split()
    best, best_hits = None, 0
    for name in CATEGORIES:
        hits = sum(1 for stem in _KEYWORDS[name] for word in words if word.startswith(stem))
        if hits > best_hits:
            best, best_hits = name, hits
    return best


def nearest_category(text: str) -> str:
    """The category whose keywords and name are closest to free ``text`` (always one)."""
    normal = _normal(text)
    words = normal.split()

    def score(name: str) -> tuple[int, float]:
        hits = sum(1 for stem in _KEYWORDS[name] for word in words if word.startswith(stem))
        hits += sum(1 for stem in _KEYWORDS[name] if "-" in stem and stem in text.lower())
        similarity = difflib.SequenceMatcher(None, normal, _normal(name)).ratio()
        return hits, similarity

    return max(CATEGORIES, key=score)
