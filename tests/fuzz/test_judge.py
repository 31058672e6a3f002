"""`judge` (and its --dry-run) with a malformed eval output folder or template."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from tests.support.eval_output import RunSpec, build_eval_output
from tests.support.fuzz import (
    FUZZ,
    assert_no_traceback,
    assert_refused,
    malformed_bytes,
    run_cli,
    wrong_json,
)

#: Nothing listens there; with --dry-run no request is made anyway.
NOWHERE = ["--base-url", "http://127.0.0.1:9/v1", "--dry-run"]


@FUZZ
@given(data=malformed_bytes | wrong_json)
def test_malformed_results_json(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        output = build_eval_output(Path(tmp), [RunSpec("a")])
        results = output / "results.json"
        results.write_bytes(data)
        assert_refused(run_cli(["judge", str(output), *NOWHERE]), results)


@FUZZ
@given(data=malformed_bytes | wrong_json)
def test_malformed_run_record_is_skipped_by_name(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        output = build_eval_output(Path(tmp), [RunSpec("a"), RunSpec("b")])
        run = output / "runs" / "b" / "01-Toy" / "1" / "run.json"
        run.write_bytes(data)
        outcome = run_cli(["judge", str(output), *NOWHERE])
        assert_no_traceback(outcome)
        assert str(run) in outcome.err


@FUZZ
@given(data=malformed_bytes)
def test_malformed_template(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        output = build_eval_output(Path(tmp), [RunSpec("a")])
        template = Path(tmp) / "prompt.md"
        template.write_bytes(data)
        outcome = run_cli(["judge", str(output), *NOWHERE, "--template", str(template)])
        assert_no_traceback(outcome)
        if outcome.code == 2:
            assert_refused(outcome, template)


@FUZZ
@given(value=st.sampled_from(["nan", "inf", "-inf", "0", "-1", "1e999", "x", ""]))
def test_numbers_that_are_not_usable(value: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        for option in ("--timeout", "--price-in"):
            outcome = run_cli(["judge", tmp, option, value])
            assert_no_traceback(outcome)
            if value not in ("0",) or option == "--timeout":
                assert outcome.code == 2 and f"argument {option}" in outcome.err
