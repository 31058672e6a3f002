"""The harness report and the verdict it gives, without Docker."""

from __future__ import annotations

import json

import pytest

from lmr_author.sandbox.harness import MARKER, parse_report
from lmr_author.sandbox.verdicts import Expected, harness_verdict

NONCE = "n" * 32


def _line(payload: dict[str, object], nonce: str = NONCE) -> str:
    return f"\n{MARKER} {nonce} {json.dumps(payload)}\n"


def _records(*outcomes: str, end: bool = True, tampered: list[str] | None = None) -> list[object]:
    records: list[object] = [
        {"event": "test", "id": f"t{i}", "outcome": outcome, "detail": ""}
        for i, outcome in enumerate(outcomes)
    ]
    if end:
        records.append({"event": "end", "tampered": tampered or [], "body": "passed"})
    return records


def _verdict(
    payload: dict[str, object], stdout: str | None = None, **options: object
) -> tuple[str, str]:
    report = parse_report(stdout if stdout is not None else _line(payload), NONCE)
    decided = harness_verdict(report, protocol=str(options.pop("protocol", "exit-code")), **options)  # type: ignore[arg-type]
    return decided.verdict, decided.reason


def test_a_complete_report_passes() -> None:
    payload = {"exit_status": 0, "records": _records("passed", "passed")}
    assert _verdict(payload, expected=Expected(tests=2))[0] == "pass"


@pytest.mark.parametrize(
    ("stdout", "words"),
    [
        ("", "reported nothing"),
        (_line({"exit_status": 0}, nonce="x" * 32), "wrong nonce"),
        (_line({"exit_status": 0}) + _line({"exit_status": 0}), "more than one"),
        (f"{MARKER} {NONCE} {{cut", "cut or garbled"),
    ],
    ids=["nothing", "wrong-nonce", "two-reports", "cut"],
)
def test_no_trustworthy_report_is_a_fail(stdout: str, words: str) -> None:
    verdict, reason = _verdict({}, stdout)
    assert verdict == "fail" and words in reason


@pytest.mark.parametrize(
    ("payload", "options", "verdict", "words"),
    [
        ({"exit_status": 0, "records": _records("passed", end=False)}, {}, "fail", "ended before"),
        ({"exit_status": 0, "records": _records("passed", "skipped")}, {}, "fail", "skipped"),
        (
            {"exit_status": 0, "records": _records("passed", tampered=["unittest.x"])},
            {},
            "fail",
            "tampered: unittest.x",
        ),
        (
            {"exit_status": 0, "records": _records("passed")},
            {"expected": Expected(tests=2)},
            "fail",
            "golden code runs 2",
        ),
        (
            {
                "exit_status": 0,
                "records": [
                    *_records("passed"),
                    {"event": "test", "id": "late", "outcome": "passed"},
                ],
            },
            {},
            "fail",
            "tampered with",
        ),
        (
            {"exit_status": 0, "records": [{"event": "garbage", "size": 9}, *_records("passed")]},
            {},
            "fail",
            "tampered with",
        ),
        ({"exit_status": 3, "records": _records("passed")}, {}, "fail", "exited with status 3"),
        ({"exit_status": 0, "timed_out": True, "records": []}, {}, "timeout", "time limit"),
        (
            {
                "exit_status": 0,
                "records": _records("passed"),
                "legacy_log": {"refused": "it is a symlink"},
            },
            {"protocol": "legacy"},
            "fail",
            "symlink",
        ),
        (
            {
                "exit_status": 0,
                "records": _records("passed"),
                "legacy_log": {"text": "Test Passed\n"},
            },
            {"protocol": "legacy", "expected": Expected(tests=1, legacy_passed=2)},
            "fail",
            "writes 2",
        ),
        (
            {
                "exit_status": 1,
                "records": _records("passed"),
                "legacy_log": {"text": "Test Passed\n"},
            },
            {"protocol": "legacy"},
            "fail",
            "status 1",
        ),
        (
            {"exit_status": 0, "records": _records("passed")},
            {"protocol": "replay", "replay_problems": ["case a: differs"]},
            "fail",
            "differs",
        ),
    ],
    ids=[
        "no-end",
        "skipped",
        "tampered",
        "count",
        "after-end",
        "untokened",
        "exit-status",
        "timeout",
        "legacy-symlink",
        "legacy-count",
        "legacy-crash",
        "replay-differs",
    ],
)
def test_what_does_not_pass(
    payload: dict[str, object], options: dict[str, object], verdict: str, words: str
) -> None:
    got, reason = _verdict(payload, **options)
    assert got == verdict and words in reason, reason
