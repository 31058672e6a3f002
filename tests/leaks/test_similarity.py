"""Similarity and containment, and the severities they give."""

from __future__ import annotations

from lmr_author.leaks.code_tokens import functions_of, normalized, tokens
from lmr_author.leaks.similarity import Golden, Score
from tests.leaks.support import GOLDEN, RENAMED, SAME_NAME_DIFFERENT


def _body(text: str) -> tuple[str, ...]:
    """The normalized body of the last function of ``text``."""
    found = tokens(text)
    unit = functions_of(found)[-1]
    return normalized(found[unit.start : unit.end])


def _golden() -> Golden:
    return Golden(_body(GOLDEN), "weighted_mean")


def test_a_renamed_copy_is_identical() -> None:
    score = _golden().compare(_body(RENAMED), "combine")
    assert score is not None and score.similarity == 1.0 and score.level == "error"


def test_a_same_named_different_function_is_not_a_copy() -> None:
    score = _golden().compare(_body(SAME_NAME_DIFFERENT), "weighted_mean")
    assert score is None or score.level is None


def test_a_larger_function_that_holds_the_body_is_a_warning() -> None:
    larger = (
        GOLDEN.replace(
            "    total = sum(weights)\n",
            "    print('weighing', len(values), 'values')\n    log = open('log.txt', 'a')\n"
            "    log.write(str(values))\n    log.close()\n    total = sum(weights)\n",
        )
        + "\n"
    )
    score = _golden().compare(_body(larger))
    assert score is not None
    assert score.similarity < 0.97 and score.containment >= 0.8 and score.level == "warning"


def test_severities_follow_the_thresholds() -> None:
    assert Score(0.99, 0.99).level == "error"
    assert Score(0.9, 0.5).level == "warning"
    assert Score(0.5, 0.9).level == "warning"
    assert Score(0.65, 0.5, namesake=True).level == "warning"
    assert Score(0.65, 0.5).level is None


def test_a_floor_of_zero_scores_every_pair() -> None:
    golden = _golden()
    unrelated = _body("def f(a):\n    return [x for x in a if x]\n" * 1)
    assert golden.compare(unrelated) is None  # the fast paths: it cannot reach a warning
    near = golden.compare(unrelated, floor=0.0)
    assert near is not None and near.level is None
