"""Verdict parsing and protocol detection, on recorded outputs (no engine needed)."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from lmr_author.sandbox.decision import (
    classify_exit,
    detect_protocol,
    harness_verdict,
    legacy_log_verdict,
)
from lmr_author.sandbox.harness import MARKER, HarnessReport, parse_report
from lmr_author.sandbox.run_result import ImplementationRun, TestVerdict
from tests.support.sandbox_tasks import ASSERT_TEST, LEGACY_TEST


def _traceback(last: str) -> str:
    return 'Traceback (most recent call last):\n  File "x.py", line 1, in <module>\n' + last


def test_exit_zero_passes() -> None:
    assert classify_exit(0, "ok\n").verdict == "pass"


def test_assertion_error_fails_with_its_message() -> None:
    result = classify_exit(1, _traceback("AssertionError: add(2, 3) should be 5\n"))
    assert result.verdict == "fail"
    assert "add(2, 3) should be 5" in result.reason


def test_other_exceptions_are_errors_with_the_exception() -> None:
    result = classify_exit(1, _traceback("ValueError: boom\n"))
    assert (result.verdict, result.reason) == ("error", "exception: ValueError: boom")
    missing = classify_exit(1, _traceback("ModuleNotFoundError: No module named 'nope'\n"))
    assert missing.verdict == "error" and "missing module" in missing.reason


def test_syntax_error_of_the_main_script_has_no_traceback_header() -> None:
    output = (
        '  File "unit_test/unit_test_1.py", line 3\n    def (\n        ^\n'
        "SyntaxError: invalid syntax\n"
    )
    result = classify_exit(1, output)
    assert result.verdict == "error" and "syntax error" in result.reason


def test_unittest_failures_fail_and_errors_error() -> None:
    failed = "F\n----\nRan 1 test in 0.001s\n\nFAILED (failures=1)\n"
    assert classify_exit(1, failed).verdict == "fail"
    errored = _traceback("KeyError: 'x'\n") + "\nRan 2 tests\n\nFAILED (failures=1, errors=1)\n"
    result = classify_exit(1, errored)
    assert result.verdict == "error" and "KeyError" in result.reason


def test_pytest_summary() -> None:
    assert classify_exit(1, "===== 1 failed, 2 passed in 0.12s =====\n").verdict == "fail"


def test_signals_and_oom_are_errors() -> None:
    assert classify_exit(137, "", oom_killed=True, memory_mb=64).reason == (
        "killed: out of memory (64 MB)"
    )
    assert classify_exit(139, "").verdict == "error"
    # Signal 9 without the engine's OOMKilled (a candidate killing itself) is no memory hint.
    killed = classify_exit(137, "", oom_killed=False, memory_mb=1024)
    assert killed.reason == "killed by signal 9" and "memory" not in killed.reason


def test_plain_nonzero_exit_is_a_failure() -> None:
    assert classify_exit(1, "mismatch\n").verdict == "fail"


def test_legacy_log_rule() -> None:
    assert legacy_log_verdict("Test Passed\nTest Passed\n").verdict == "pass"
    assert legacy_log_verdict("Test Passed\nTest Failed\n").verdict == "fail"
    assert legacy_log_verdict("").verdict == "fail"
    assert legacy_log_verdict(None).verdict == "fail"


def test_detect_protocol() -> None:
    assert detect_protocol(LEGACY_TEST) == "legacy"
    assert detect_protocol(ASSERT_TEST) == "exit-code"
    unittest_style = (
        "import unittest\nclass T(unittest.TestCase):\n    def test(self):\n"
        "        print('Passed')\n"
    )
    assert detect_protocol(unittest_style) == "exit-code"
    published_style = (
        "import logging, unittest\nlogging.basicConfig(filename='logs/t.log')\n"
        "class T(unittest.TestCase):\n    def test(self):\n        try:\n"
        "            self.assertEqual(f(), 1)\n            logging.info('Test Passed')\n"
        "        except AssertionError:\n            logging.info('Test Failed')\n"
    )
    assert detect_protocol(published_style) == "published"
    # However the log is set up (or not recognised), asserting + logging is published.
    assert detect_protocol(published_style.replace("basicConfig", "dictConfig")) == "published"
    assert detect_protocol("print('hello')\n") == "exit-code"
    assert detect_protocol("def (:\n") == "exit-code"


def _verdict(verdict: str) -> TestVerdict:
    return TestVerdict("t.py", verdict, "", 0.1, "", 0)  # type: ignore[arg-type]


def test_overall_verdict() -> None:
    assert ImplementationRun([_verdict("pass"), _verdict("pass")], "id").verdict == "pass"
    assert ImplementationRun([_verdict("pass"), _verdict("fail")], "id").verdict == "fail"
    assert ImplementationRun([_verdict("fail"), _verdict("timeout")], "id").verdict == "timeout"
    assert ImplementationRun([_verdict("pass")], "id", infra_error="x").verdict == "infra-error"
    assert ImplementationRun([], "id").verdict == "error"


@given(exit_code=st.integers(min_value=-64, max_value=255), output=st.text(max_size=400))
def test_any_output_gets_a_verdict(exit_code: int, output: str) -> None:
    result = classify_exit(exit_code, output)
    assert result.verdict in {"pass", "fail", "error"}
    assert (result.verdict == "pass") == (exit_code == 0)
    assert result.reason


# -- the reason is the test's record, never the candidate's text (issue 39) -------------

_SPOOF_NOTE = (
    "in the candidate's process:\nTraceback (most recent call last):\n"
    '  File "goal.py", line 3, in forward\n'
    "AssertionError: the golden values\n"
    "InfraError: the Docker engine failed while running unit_test/unit_test_1.py"
)


def _report(*records: dict[str, object]) -> HarnessReport:
    line = {"event": "end", "tampered": [], "proxied": 1, "changed": ["self"]}
    payload = {"exit_status": 1, "records": [*records, line]}
    return parse_report(f"{MARKER} n {json.dumps(payload)}\n", "n")


def test_a_candidate_spoofing_an_infra_reason_gets_the_tests_reason() -> None:
    """Its exception's name, message and traceback note say "InfraError" and end in an
    AssertionError line: the reason is what the test's process recorded (the type it
    raised there, the candidate's words quoted and marked), and the verdict is an
    error, never a fail or an infra-error."""
    detail = f"Traceback (most recent call last):\nException: InfraError: x\n{_SPOOF_NOTE}"
    record = {
        "event": "test",
        "id": "test_forward",
        "outcome": "errored",
        "detail": detail,
        "exception": {
            "type": "Exception",
            "builtin": True,
            "message": "InfraError: the Docker engine failed\nAssertionError: forged",
            "candidate": "InfraError",
        },
    }
    decided = harness_verdict(_report(record), protocol="exit-code")
    assert decided.verdict == "error"
    assert decided.reason.startswith("test_forward: exception in the candidate's code: Exception")
    assert "\n" not in decided.reason and "'InfraError'" in decided.reason
    # Without the record's exception (the old parsing), the note's lines decided: a fail.
    bare = {key: value for key, value in record.items() if key != "exception"}
    assert harness_verdict(_report(bare), protocol="exit-code").verdict == "fail"


def test_the_tests_own_assertion_fails_with_its_message_whatever_the_note() -> None:
    record = {
        "event": "test",
        "id": "test_forward",
        "outcome": "failed",
        "detail": "Traceback (most recent call last):\nAssertionError: not close\n" + _SPOOF_NOTE,
        "exception": {"type": "AssertionError", "builtin": True, "message": "not close"},
    }
    decided = harness_verdict(_report(record), protocol="exit-code")
    assert (decided.verdict, decided.reason) == (
        "fail",
        "test_forward: assertion failed: not close",
    )


def test_a_record_whose_exception_is_malformed_is_garbage() -> None:
    record = {"event": "test", "id": "t", "outcome": "errored", "exception": {"type": 3}}
    assert _report(record).garbage == 1


def test_an_end_record_whose_changed_inputs_are_malformed_is_garbage() -> None:
    """What a golden run's calls changed decides what candidates may change: only a list
    of short names is taken."""
    for changed in ("self", [1], ["x" * 201], [""], ["self"] * 501):
        line = {"event": "end", "tampered": [], "changed": changed}
        payload = {"exit_status": 0, "records": [line]}
        report = parse_report(f"{MARKER} n {json.dumps(payload)}\n", "n")
        assert report.garbage == 1 and not report.ended, changed
