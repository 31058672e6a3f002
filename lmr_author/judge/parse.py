"""Read the judge's three-way category and rationale out of whatever text it returned.

Models answer in many shapes even when asked for JSON: bare JSON, JSON in a ```json
fence, JSON followed by prose, ``"category": "1"`` as a string, the category's name
instead of its number, or the paper's own unquoted pseudo-JSON. The published judge
outputs (``reference/formats/judge-output-*.txt``) show three shapes: bare JSON, fenced
JSON after prose, and prose whose last line is the bare digit (one published model
answered 27 of 168 that way). A last line such as ``**3**``, ``Category: 2``,
``Final answer: (1)`` or ``Completely correct`` is read too; a digit inside the prose
(``2. Using sets ...``) never is.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from lmr_author.domain.three_way import ThreeWayLabel, short_name
from lmr_author.util.json_input import MAX_DEPTH, nesting_depth

_FENCE = re.compile(r"```[ \t]*(?:json|JSON|javascript|js)?[ \t]*\n?(.*?)```", re.DOTALL)
_LOOSE_CATEGORY = re.compile(r"""["']?category["']?\s*[:=]\s*["']?\s*([123])\b""", re.IGNORECASE)
_LOOSE_RATIONALE = re.compile(r"rationale[\"']?\s*[:=]\s*\[(.*?)\]", re.IGNORECASE | re.DOTALL)
#: A last line that is only the answer: ``2``, ``**3**``, ``Category: 2``, ``Answer - (1).``
_LAST_LINE = re.compile(
    r"(?:(?:final\s+)?(?:answer|category|label|verdict|classification|score|rating)"
    r"\s*[:=\-]?\s*)?\(?([123])\)?\.?",
    re.IGNORECASE,
)
_DECORATION = " \t*_`#>\"'"
_NAMES = (
    # Longest, most specific phrases first: "logically incorrect" contains "logic".
    ("completely correct", 3),
    ("fully correct", 3),
    ("logically incorrect", 1),
    ("incorrect logic", 1),
    ("logic correct", 2),
    ("logically correct", 2),
    ("subtle error", 2),
)


@dataclass(frozen=True)
class ParsedAnswer:
    """A readable answer: category 1, 2 or 3 and the rationale points."""

    category: int
    rationale: list[str]

    @property
    def label(self) -> str:
        return short_name(self.category)


def coerce_category(value: Any) -> int | None:
    """1, 2 or 3 from an int, a float, ``"2"``, ``"Category 2"`` or a category name."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if ThreeWayLabel.parse(value) is not None else None
    if isinstance(value, float):
        return (
            int(value)
            if value.is_integer() and ThreeWayLabel.parse(int(value)) is not None
            else None
        )
    if isinstance(value, str):
        text = value.strip().lower()
        digits = re.fullmatch(r"(?:category\s*)?\(?([123])\)?(?:\s*[.:)-].*)?", text, re.DOTALL)
        if digits:
            return int(digits.group(1))
        for name, category in _NAMES:
            if name in text:
                return category
    return None


def _rationale(value: Any) -> list[str]:
    if isinstance(value, list):
        return [str(item).strip() for item in value if str(item).strip()]
    if isinstance(value, str) and value.strip():
        lines = [line.strip(" \t-*•") for line in value.strip().splitlines()]
        return [line for line in lines if line]
    return []


def _from_object(obj: Any) -> ParsedAnswer | None:
    if not isinstance(obj, dict):
        return None
    lowered = {str(key).lower(): value for key, value in obj.items()}
    category = coerce_category(lowered.get("category", lowered.get("label")))
    if category is None:
        return None
    rationale = _rationale(lowered.get("rationale", lowered.get("reasons")))
    return ParsedAnswer(category, rationale)


def _json_objects(text: str) -> list[Any]:
    """Every JSON value that starts at a ``{`` in ``text``, in order."""
    found: list[Any] = []
    if text.count("{") > MAX_DEPTH and nesting_depth(text) > MAX_DEPTH:
        return found  # no judge answer nests that deep; json would recurse until it fails
    decoder = json.JSONDecoder()
    position = text.find("{")
    while position != -1:
        try:
            value, end = decoder.raw_decode(text, position)
        except (ValueError, RecursionError):
            position = text.find("{", position + 1)
            continue
        found.append(value)
        position = text.find("{", end)
    return found


def _from_last_line(text: str) -> ParsedAnswer | None:
    """The answer when the last non-empty line is only a category (digit or name)."""
    lines = [line for line in text.strip().splitlines() if line.strip()]
    if not lines:
        return None
    last = lines[-1].strip(_DECORATION).strip()
    # "**Category:** 2" decorates inside too: drop markdown emphasis everywhere.
    last = re.sub(r"[*_`]+", "", last).strip()
    match = _LAST_LINE.fullmatch(last)
    category = int(match.group(1)) if match else None
    if category is None:
        lowered = last.lower().rstrip(".")
        category = next((value for name, value in _NAMES if lowered == name), None)
    if category is None:
        return None
    before = text.strip()[: -len(lines[-1].strip())]
    paragraphs = [p.strip() for p in re.split(r"\n\s*\n", before) if p.strip()]
    rationale = [" ".join(paragraphs[-1].split())] if paragraphs else []
    return ParsedAnswer(category, rationale)


def parse_judge_answer(text: str | None) -> ParsedAnswer | None:
    """The category and rationale in ``text``, or None when no category can be read."""
    if not text or not text.strip():
        return None
    candidates = [match.group(1) for match in _FENCE.finditer(text)] + [text]
    for candidate in candidates:
        for obj in _json_objects(candidate):
            parsed = _from_object(obj)
            if parsed is not None:
                return parsed
    loose = _LOOSE_CATEGORY.search(text)
    if loose:  # the paper's unquoted pseudo-JSON: {category: 2, rationale: [a, b]}
        points: list[str] = []
        block = _LOOSE_RATIONALE.search(text, loose.end())
        if block:
            for line in block.group(1).splitlines():
                point = line.strip().rstrip(",").strip().strip("\"'").strip()
                if point:
                    points.append(point)
        return ParsedAnswer(int(loose.group(1)), points)
    return _from_last_line(text)
