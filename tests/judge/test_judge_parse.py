"""Reading categories out of judge answers in the shapes models really produce."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lmr_author.domain.three_way import short_name
from lmr_author.judge.parse import coerce_category, parse_judge_answer

# The shared folder sits beside the repository (../shared), as the design says.
FORMATS = Path(__file__).resolve().parents[2].parent / "shared" / "reference" / "formats"


@pytest.mark.parametrize("name", ["judge-output-bare-json.txt", "judge-output-fenced-json.txt"])
def test_published_examples_parse(name: str) -> None:
    path = FORMATS / name
    if not path.exists():
        pytest.skip("reference formats not available")
    answer = parse_judge_answer(path.read_text())
    assert answer is not None
    assert answer.category == 1
    assert answer.label == "LI"
    assert len(answer.rationale) == 3


@pytest.mark.parametrize(
    ("text", "category", "rationale"),
    [
        ('{"category": 3, "rationale": ["ok"]}', 3, ["ok"]),
        ('{"category": "2", "rationale": ["a", "b"]}', 2, ["a", "b"]),
        ('```json\n{"category": 1, "rationale": []}\n```\nHope this helps!', 1, []),
        ('Here is my verdict:\n{"category": 3.0, "rationale": "single"} done {', 3, ["single"]),
        ('{"category": "Completely Correct", "rationale": []}', 3, []),
        ('{"category": "Logically Incorrect", "rationale": []}', 1, []),
        ('{"Category": "Category 2: subtle errors", "Rationale": ["x"]}', 2, ["x"]),
        ('{"note": {"nested": 1}}\n{"category": 2, "rationale": ["late"]}', 2, ["late"]),
        (
            "{\n  category: 2,\n  rationale: [\n    First point,\n    Second point\n  ]\n}",
            2,
            ["First point", "Second point"],
        ),
    ],
)
def test_shapes(text: str, category: int, rationale: list[str]) -> None:
    answer = parse_judge_answer(text)
    assert answer is not None
    assert (answer.category, answer.rationale) == (category, rationale)


@pytest.mark.parametrize(
    "text",
    ["", "   ", "I think it is fine.", '{"category": 7}', '{"category": true}', "{broken json"],
)
def test_unreadable(text: str) -> None:
    assert parse_judge_answer(text) is None


def test_coerce_and_label() -> None:
    assert coerce_category(True) is None
    assert coerce_category(2.5) is None
    assert coerce_category("3") == 3
    assert short_name(None) == "unparsed"
    assert short_name(2) == "LC"


@given(
    category=st.sampled_from([1, 2, 3, "1", "2", "3"]),
    rationale=st.lists(st.text(min_size=1).filter(str.strip), max_size=4),
    prose=st.text(alphabet="abc .\n", max_size=40),
    fenced=st.booleans(),
)
def test_roundtrip_any_wrapping(
    category: int | str, rationale: list[str], prose: str, fenced: bool
) -> None:
    body = json.dumps({"category": category, "rationale": rationale})
    text = f"```json\n{body}\n```" if fenced else body
    answer = parse_judge_answer(prose + "\n" + text + "\n" + prose)
    assert answer is not None
    assert answer.category == int(category)
    assert answer.rationale == [r.strip() for r in rationale]
