"""A verdict score's explanation: each failing test's reason (with the values it names)
and the tail of what it printed, capped; nothing of a passing run's tests."""

from __future__ import annotations

from typing import Any

from lmr_author.eval_output import RunRecord
from lmr_author.eval_output.records import TestRecord
from lmr_author.inspect_bridge.explain import (
    MAX_LOG_TAIL_CHARS,
    MAX_REASON_CHARS,
    explanation,
    failures,
)

FIRST = "unit_test/unit_test_1.py"
SECOND = "unit_test/unit_test_2.py"


def _record(*tests: tuple[str, str, str], **fields: Any) -> RunRecord:
    records = [TestRecord(name, verdict, reason, 0.1, "") for name, verdict, reason in tests]
    failing = [t for t in records if t.verdict != "pass"]
    verdict = failing[0].verdict if failing else "pass"
    reason = f"{failing[0].test_file}: {failing[0].reason}" if failing else ""
    base: dict[str, Any] = {
        "run_key": "k",
        "system": "s",
        "task": "90-T",
        "implementation": 1,
        "category": None,
        "goal_file": "calc.py",
        "goal_function": "add",
        "class_name": "",
        "candidate_sha256": None,
        "image_id": "i",
        "verdict": verdict,
        "reason": reason,
        "tests": records,
    }
    return RunRecord(**{**base, **fields})


def test_each_failing_test_gives_its_reason_and_the_tail_of_its_output() -> None:
    record = _record(
        (FIRST, "fail", "assertion failed: add(2, 3) = -1, expected 5"),
        (SECOND, "error", "ZeroDivisionError: division by zero"),
    )
    logs = {FIRST: "checking add\n", SECOND: ""}
    text = explanation(record, logs)
    first, *rest = text.split("\n\n")
    assert first == f"{FIRST}: assertion failed: add(2, 3) = -1, expected 5"
    # The deciding test's reason is the run's: said once; the other's is said.
    assert rest == [
        f"What {FIRST} printed:\n```\nchecking add\n```",
        f"{SECOND} (error): ZeroDivisionError: division by zero",
        f"{SECOND} printed nothing.",
    ]
    assert [f.to_json() for f in failures(record, logs)] == [
        {
            "test_file": FIRST,
            "verdict": "fail",
            "reason": "assertion failed: add(2, 3) = -1, expected 5",
            "log_tail": "checking add",
        },
        {
            "test_file": SECOND,
            "verdict": "error",
            "reason": "ZeroDivisionError: division by zero",
            "log_tail": "",
        },
    ]


def test_reasons_and_logs_are_capped_keeping_the_values_and_the_end() -> None:
    values = "expected [1.0, 2.0], got [1.0, 2.5]"
    reason = f"assertion failed: {values}; " + "x" * 10_000
    log = "".join(f"line {i}\n" for i in range(5_000)) + "Traceback: the last line\n"
    record = _record((FIRST, "fail", reason))
    (failure,) = failures(record, {FIRST: log})
    assert values in failure.reason
    assert len(failure.reason) < MAX_REASON_CHARS + 40
    assert failure.reason.endswith("more characters)")
    assert failure.log_tail.endswith("Traceback: the last line")
    assert len(failure.log_tail) < MAX_LOG_TAIL_CHARS + 40
    assert failure.log_tail.startswith("… (") and "\nline " in failure.log_tail  # whole lines
    assert len(explanation(record, {FIRST: log})) < 2 * (MAX_REASON_CHARS + MAX_LOG_TAIL_CHARS)


def test_a_log_with_a_fence_in_it_cannot_close_its_block() -> None:
    record = _record((FIRST, "fail", "assertion failed"))
    text = explanation(record, {FIRST: "before\n```\nafter"})
    assert "````\nbefore\n```\nafter\n````" in text


def test_a_passing_run_and_a_run_without_tests() -> None:
    assert explanation(_record((FIRST, "pass", "1 test(s) passed")), {FIRST: "noise"}) == (
        "all tests passed"
    )
    unspliced = _record(verdict="error", reason="the prediction could not be spliced: no def")
    assert explanation(unspliced, {}) == "the prediction could not be spliced: no def"
    assert failures(unspliced, {}) == []
    # What an agent's collection noted follows the run's reason.
    assert explanation(unspliced, {}, ["; not scored: a.py changed"]).endswith("a.py changed")
