"""`eval` with malformed predictions, info.json, options; refused before any container.

Every input here is invalid, so no run ever starts and no Docker engine is needed.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from tests.support.eval_output import write_task
from tests.support.fuzz import (
    FUZZ,
    assert_refused,
    json_values,
    malformed_bytes,
    run_cli,
)

GOOD_LINE = {"task": "01-Toy", "implementation": 1, "system": "s", "source": "def scale(v, f):\n"}

#: A JSON line that is never a usable prediction: not an object, or a field of the
#: wrong type, or a task the benchmark does not have.
bad_line = st.one_of(
    json_values.filter(lambda value: not isinstance(value, dict)),
    st.sampled_from(["task", "implementation", "system", "source"]).flatmap(
        lambda key: json_values.filter(
            lambda value: (
                not isinstance(value, str if key != "implementation" else int)
                or isinstance(value, bool)
            )
        ).map(lambda value: {**GOOD_LINE, key: value})
    ),
    st.text(min_size=1, max_size=12).map(lambda name: {**GOOD_LINE, "task": "99-" + name}),
)


def _eval(benchmark: Path, predictions: Path, tmp: str, *extra: str) -> list[str]:
    return ["eval", str(benchmark), "-s", str(predictions), "-o", f"{tmp}/out", *extra]


@FUZZ
@given(data=malformed_bytes, line=bad_line)
def test_malformed_predictions(data: bytes, line: object) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        benchmark = Path(tmp) / "bench"
        write_task(benchmark)
        predictions = Path(tmp) / "predictions.jsonl"
        predictions.write_bytes(data)
        assert_refused(run_cli(_eval(benchmark, predictions, tmp)), predictions)
        # One bad line after a good one (split on "\n" only: U+2028 stays in its string).
        good = json.dumps({**GOOD_LINE, "source": "def scale(v, f):\u2028\n"}, ensure_ascii=False)
        predictions.write_text(good + "\n" + json.dumps(line) + "\n", encoding="utf-8")
        outcome = run_cli(_eval(benchmark, predictions, tmp))
        assert_refused(outcome, predictions)
        assert "(line 2)" in outcome.err


@FUZZ
@given(data=malformed_bytes)
def test_malformed_info_json(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        benchmark = Path(tmp) / "bench"
        task = write_task(benchmark)
        (task / "info.json").write_bytes(data)
        predictions = Path(tmp) / "predictions.jsonl"
        predictions.write_text(json.dumps(GOOD_LINE) + "\n")
        assert_refused(run_cli(_eval(task, predictions, tmp)), task / "info.json")


@FUZZ
@given(value=st.sampled_from(["nan", "inf", "-inf", "0", "-5", "1e999", "soon"]))
def test_a_timeout_that_is_not_a_positive_number(value: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        outcome = run_cli(["eval", tmp, "-s", f"{tmp}/p.jsonl", "--timeout", value])
        assert outcome.code == 2 and "argument --timeout" in outcome.err


def test_an_output_that_is_a_file(tmp_path: Path) -> None:
    output = tmp_path / "results"
    output.write_text("not a folder")
    outcome = run_cli(["eval", str(tmp_path), "-s", "p.jsonl", "-o", str(output)])
    assert outcome.code == 2 and "is a file, not a folder" in outcome.err
    below = output / "sub"
    outcome = run_cli(["eval", str(tmp_path), "-s", "p.jsonl", "-o", str(below)])
    assert outcome.code == 2 and "argument --output" in outcome.err


def test_a_prediction_for_an_unknown_task_is_named(tmp_path: Path) -> None:
    benchmark = tmp_path / "bench"
    write_task(benchmark)
    predictions = tmp_path / "p.jsonl"
    predictions.write_text(json.dumps({**GOOD_LINE, "task": "01-Tyo"}) + "\n")
    outcome = run_cli(_eval(benchmark, predictions, str(tmp_path)))
    assert_refused(outcome, predictions)
    assert "'01-Tyo'" in outcome.err and "Did you mean '01-Toy'" in outcome.err
