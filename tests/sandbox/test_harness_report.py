"""The harness report and the verdict it gives, without Docker."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lmr_author.domain import replay_codec
from lmr_author.sandbox.decision import Expected, decide, harness_verdict
from lmr_author.sandbox.harness import MARKER, parse_report

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


@pytest.mark.parametrize(
    ("status", "oom", "timed_out", "reported_timeout", "verdict", "why"),
    [
        # SIGKILL before the time was up: killed (only the engine may blame memory).
        (-9, False, False, False, "error", "killed by signal 9"),
        (0, True, True, False, "error", "out of memory (512 MB)"),  # beats the clock
        # The host's watch, but the run's own report ended in time: the report decides
        # (an engine that did not answer is not the candidate's clock).
        (0, False, True, False, "pass", "2 test(s) passed"),
        (-9, False, False, True, "timeout", "time limit of 30 s"),  # the supervisor's
        (0, False, False, False, "pass", "2 test(s) passed"),
    ],
)
def test_memory_then_time_then_the_harness_decide(
    status: int, oom: bool, timed_out: bool, reported_timeout: bool, verdict: str, why: str
) -> None:
    payload = {
        "exit_status": status,
        "timed_out": reported_timeout,
        "records": _records("passed", "passed"),
    }
    decided = decide(
        parse_report(_line(payload), NONCE),
        protocol="exit-code",
        memory_mb=512,
        timeout_s=30,
        expected=Expected(tests=2),
        oom_killed=oom,
        timed_out=timed_out,
    )
    assert (decided.verdict, why in decided.reason) == (verdict, True), decided.reason


def test_the_hosts_watch_decides_a_timeout_only_without_a_complete_report() -> None:
    options = {"protocol": "exit-code", "memory_mb": 512, "timeout_s": 30.0}
    silent = parse_report("", NONCE)
    assert decide(silent, **options, timed_out=True).verdict == "timeout"  # type: ignore[arg-type]
    cut = parse_report(_line({"exit_status": 1, "records": _records("passed", end=False)}), NONCE)
    assert not cut.ended
    assert decide(cut, **options, timed_out=True).verdict == "timeout"  # type: ignore[arg-type]


def test_replay_outputs_are_held_to_the_expected_ones(tmp_path: Path) -> None:
    expected = tmp_path / "expected"
    expected.mkdir()
    (expected / "out_1.json").write_text(replay_codec.dumps([1.0, 2.0]), encoding="utf-8")
    payload = {
        "exit_status": 0,
        "records": _records("passed"),
        "outputs": {"files": {"out_1.json": {"text": replay_codec.dumps([1.0, 2.5])}}},
    }
    report = parse_report(_line(payload), NONCE)
    options = {"protocol": "replay", "memory_mb": 512, "timeout_s": 30.0}
    assert decide(report, **options, replay_expected=expected).verdict == "fail"  # type: ignore[arg-type]
    (expected / "out_1.json").write_text(replay_codec.dumps([1.0, 2.5]), encoding="utf-8")
    assert decide(report, **options, replay_expected=expected).verdict == "pass"  # type: ignore[arg-type]
