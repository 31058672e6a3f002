"""The one three-way label type that human labels, the judge and the review app share."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from lmr_author.domain.three_way import UNPARSED, ThreeWayLabel, short_name
from lmr_author.judge.parse import coerce_category
from lmr_author.judge.store import Judgment
from lmr_author.labels import InvalidLabelError, Label
from lmr_author.util.errors import UserError

PACKAGE = Path(__file__).resolve().parents[2] / "lmr_author"


def test_names_and_numbers() -> None:
    assert [(x.value, x.short) for x in ThreeWayLabel] == [(1, "LI"), (2, "LC"), (3, "CC")]
    assert ThreeWayLabel.CC.long == "completely correct"
    assert ThreeWayLabel.LI.long == "logically incorrect"
    assert "implementation errors" in ThreeWayLabel.LC.long


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (1, ThreeWayLabel.LI),
        ("2", ThreeWayLabel.LC),
        (" cc ", ThreeWayLabel.CC),
        ("li", ThreeWayLabel.LI),
        (0, None),
        (4, None),
        (True, None),
        (2.0, None),
        ("completely", None),
        (None, None),
    ],
)
def test_parse(value: object, expected: ThreeWayLabel | None) -> None:
    assert ThreeWayLabel.parse(value) is expected


def test_short_name_of_anything() -> None:
    assert [short_name(v) for v in (1, 2, 3, None, 7)] == ["LI", "LC", "CC", UNPARSED, UNPARSED]


def test_human_and_judge_sides_agree_on_what_a_label_is() -> None:
    """A bool is not a label: the judge's file reader used to take ``true`` for 1."""
    for value in ThreeWayLabel:
        label = Label(annotator="a", system="s", task="t", implementation=1, label=value.value)
        assert label.name == value.short
        assert coerce_category(value.value) == value.value
    for bad in (True, 0, 4, "2"):
        with pytest.raises(InvalidLabelError):
            Label(annotator="a", system="s", task="t", implementation=1, label=bad)  # type: ignore[arg-type]
    assert coerce_category(True) is None


def test_judgment_file_refuses_a_bool_category(tmp_path: Path) -> None:
    record = {"system": "s", "task": "t", "implementation": 1, "category": True}
    with pytest.raises(UserError, match="category"):
        Judgment.from_json(record, path=tmp_path / "1.json")


def test_no_copy_of_the_label_names_is_left() -> None:
    """Only three_way.py maps numbers to names (labels/ and judge/ each had a copy)."""
    mapping = re.compile(r"""\b1\s*:\s*["']LI["']""")
    copies = [
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*.py")
        if mapping.search(path.read_text(encoding="utf-8")) and path.name != "three_way.py"
    ]
    assert copies == []
