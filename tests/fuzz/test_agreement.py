"""`agreement` with malformed label, alias, judgment and results files."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given

from tests.support.eval_output import RunSpec, build_eval_output
from tests.support.fuzz import (
    FUZZ,
    assert_no_traceback,
    assert_refused,
    malformed_bytes,
    run_cli,
    wrong_json,
)

BASE = ["agreement", "--bootstrap", "0", "--json"]


@FUZZ
@given(data=malformed_bytes)
def test_malformed_human_labels(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "human.json"
        path.write_bytes(data)
        assert_refused(run_cli([*BASE, "--human", str(path)]), path)


@FUZZ
@given(data=malformed_bytes | wrong_json)
def test_malformed_aliases(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "aliases.json"
        path.write_bytes(data)
        human = Path(tmp) / "human.json"
        human.write_text("[]")
        outcome = run_cli([*BASE, "--human", str(human), "--aliases", str(path)])
        assert_no_traceback(outcome)
        if outcome.code == 2 and "aliases" in outcome.err:
            assert_refused(outcome, path)


@FUZZ
@given(data=malformed_bytes | wrong_json)
def test_a_malformed_judgment_is_refused(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        output = build_eval_output(Path(tmp), [RunSpec("a")])
        human = Path(tmp) / "human.json"
        human.write_text("[]")
        judgment = output / "judgments" / "a" / "01-Toy" / "1.json"
        judgment.parent.mkdir(parents=True)
        judgment.write_bytes(data)
        assert_refused(run_cli([*BASE, "--human", str(human), "--judge", str(output)]), judgment)


@FUZZ
@given(data=malformed_bytes | wrong_json)
def test_a_malformed_run_record_is_reported_by_name(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        output = build_eval_output(Path(tmp), [RunSpec("a"), RunSpec("b")])
        human = Path(tmp) / "human.json"
        human.write_text("[]")
        run = output / "runs" / "b" / "01-Toy" / "1" / "run.json"
        run.write_bytes(data)
        outcome = run_cli([*BASE, "--human", str(human), "--judge", str(output)])
        assert_no_traceback(outcome)
        assert str(run) in outcome.out + outcome.err


@FUZZ
@given(data=malformed_bytes)
def test_malformed_published_judge_output_is_reported_not_fatal(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "judge" / "BaseAgent" / "gpt4o"
        folder.mkdir(parents=True)
        answer = folder / "1-DPO_dpo_0_analysis.txt"
        answer.write_bytes(data)
        human = Path(tmp) / "human.json"
        human.write_text("[]")
        outcome = run_cli([*BASE, "--human", str(human), "--judge", str(folder.parent.parent)])
        assert_no_traceback(outcome)


def test_an_output_that_is_a_folder(tmp_path: Path) -> None:
    human = tmp_path / "human.json"
    human.write_text("[]")
    outcome = run_cli([*BASE, "--human", str(human), "-o", str(tmp_path)])
    assert_refused(outcome, tmp_path)
    assert "is a folder, not a file" in outcome.err
