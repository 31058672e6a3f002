"""Every published judge-output shape is read, and digits inside prose never are.

``published/`` holds copies of ``reference/formats/judge-output-*.txt``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from lmr_author.judge.parse import parse_judge_answer

PUBLISHED = Path(__file__).parent / "published"


@pytest.mark.parametrize(
    ("name", "category"),
    [
        ("judge-output-bare-json.txt", 1),
        ("judge-output-fenced-json.txt", 1),
        ("judge-output-trailing-digit.txt", 2),
    ],
)
def test_the_published_shapes(name: str, category: int) -> None:
    answer = parse_judge_answer((PUBLISHED / name).read_text(encoding="utf-8"))
    assert answer is not None and answer.category == category
    assert answer.rationale


@pytest.mark.parametrize(
    ("last_line", "category"),
    [
        ("3", 3),
        ("**3**", 3),
        ("`1`", 1),
        ("Category: 2", 2),
        ("**Category:** 2", 2),
        ("Final answer: (1).", 1),
        ("Completely correct.", 3),
        ("Logically incorrect", 1),
    ],
)
def test_a_last_line_that_is_only_the_answer(last_line: str, category: int) -> None:
    answer = parse_judge_answer(f"The agent sums where the paper averages.\n\n{last_line}\n\n")
    assert answer is not None and answer.category == category


def test_the_rationale_of_a_trailing_digit_is_the_last_paragraph() -> None:
    answer = parse_judge_answer("Long analysis.\n\n**Conclusion:** wrong loss.\n\n1\n")
    assert answer is not None and answer.rationale == ["**Conclusion:** wrong loss."]


@pytest.mark.parametrize(
    "text",
    [
        "Differences:\n1. Sets drop repeated tokens.\n2. Empty spans divide by zero.",
        "I would give it 2",
        "It is mostly correct, maybe 3 out of 5",
        "<html><body>502 Bad Gateway</body></html>",
        "",
    ],
)
def test_prose_without_an_answer_stays_unread(text: str) -> None:
    assert parse_judge_answer(text) is None
