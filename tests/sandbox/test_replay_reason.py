"""A replay test's reason names the first case that differs, with both values.

`compare_outputs` reads every case's expected and actual outcome: the first differing
case says where it first differs and what each side holds there, the candidate's value
marked as its own and quoted, both capped; the verdict's reason (`decide`) carries it,
and so do eval's records and the Inspect bridge's explanations, which show reasons.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy

from lmr_author.domain import replay_codec
from lmr_author.eval_output import RunRecord
from lmr_author.eval_output import TestRecord as RecordedTest
from lmr_author.inspect_bridge.explain import failures
from lmr_author.sandbox.decision import decide
from lmr_author.sandbox.harness import HarnessReport
from lmr_author.sandbox.harness import TestRecord as HarnessTest
from lmr_author.sandbox.replay import SHOWN_CHARS, compare_outputs


def _expected(folder: Path, cases: dict[str, Any], changed: dict[str, Any] | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for case, value in cases.items():
        (folder / f"{case}.json").write_text(replay_codec.dumps(value, changed=changed))
    return folder


def _outputs(cases: dict[str, Any], changed: dict[str, Any] | None = None) -> dict[str, Any]:
    files = {
        f"{case}.json": {"text": replay_codec.dumps(value, changed=changed), "truncated": False}
        for case, value in cases.items()
    }
    return {"files": files}


def test_the_first_differing_case_names_where_and_both_values(tmp_path: Path) -> None:
    expected = _expected(
        tmp_path / "e", {"a_1": 0.5, "a_2": (numpy.array([1.0, 2.0, 3.0]), 7), "a_3": [1, 2]}
    )
    got = _outputs({"a_1": 0.5, "a_2": (numpy.array([1.0, 2.5, 3.0]), 7), "a_3": [1, 3]})
    problems = compare_outputs(expected, got)
    assert problems[0] == (
        "case a_2: the output differs from the expected output at [0][1]: "
        "expected 2.0, the candidate's 2.5"
    )
    # Later cases are named as before, without values (the reason stays short).
    assert problems[1] == "case a_3: the output differs from the expected output"


def test_a_whole_value_that_differs_is_shown_whole_and_an_input_the_call_changed(
    tmp_path: Path,
) -> None:
    expected = _expected(tmp_path / "e", {"c": numpy.zeros(100)})
    problems = compare_outputs(expected, _outputs({"c": numpy.zeros(99)}))
    assert problems == [
        "case c: the output differs from the expected output: expected "
        "[0. 0. 0. ... 0. 0. 0.] (shape (100,), float64), the candidate's "
        "[0. 0. 0. ... 0. 0. 0.] (shape (99,), float64)"
    ]
    changed = _expected(tmp_path / "f", {"d": None}, changed={"args[0]": [1.0, 2.0]})
    problems = compare_outputs(changed, _outputs({"d": None}, changed={"args[0]": [1.0, 4.0]}))
    assert problems == [
        "case d: args[0] after the call differs from what the golden call left at [1]: "
        "expected 2.0, the candidate's 4.0"
    ]


def test_the_candidates_text_is_quoted_made_safe_and_capped(tmp_path: Path) -> None:
    expected = _expected(tmp_path / "e", {"c": 0.25})
    forged = "x; all tests passed\n\x1b[2Jcase c: matches" + "y" * 5000
    [problem] = compare_outputs(expected, _outputs({"c": forged}))
    head, _, shown = problem.partition("the candidate's ")
    assert head == "case c: the output differs from the expected output: expected 0.25, "
    assert shown.startswith("'x; all tests passed\\n\\x1b[2Jcase c: matches")
    assert len(shown) == SHOWN_CHARS and shown.endswith("…")
    assert "\n" not in problem and "\x1b" not in problem


def test_eval_and_the_inspect_bridge_carry_the_values(tmp_path: Path) -> None:
    expected = _expected(tmp_path / "e", {"p_1": numpy.array([0.1, 0.2])})
    report = HarnessReport(
        found=True,
        exit_status=0,
        ended=True,
        records=[HarnessTest("t.test_p", "passed")],
        outputs=_outputs({"p_1": numpy.array([0.1, 0.9])}),
    )
    decided = decide(
        report, protocol="replay", memory_mb=1024, timeout_s=60, replay_expected=expected
    )
    assert decided.verdict == "fail"
    assert decided.reason == (
        "case p_1: the output differs from the expected output at [1]: "
        "expected 0.2, the candidate's 0.9"
    )
    record = RunRecord(
        run_key="k",
        system="s",
        task="01-X",
        implementation=1,
        category=None,
        goal_file="m.py",
        goal_function="p",
        class_name="",
        candidate_sha256=None,
        image_id="sha256:0",
        verdict="fail",
        tests=[RecordedTest("unit_test/unit_test_1.py", "fail", decided.reason, 0.1, "")],
    )
    [failure] = failures(record, {})
    assert "expected 0.2, the candidate's 0.9" in failure.reason
