"""Predictions JSONL submissions: parsing errors name the line; splicing; missing lines."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lmr_author.eval_loop import Submission, read_predictions, run_evaluation
from lmr_author.util.errors import UserError
from tests.eval_loop.evaltasks import LocalBackend, function_source, make_benchmark


def _write(path: Path, lines: list[object]) -> Path:
    path.write_text(
        "\n".join(line if isinstance(line, str) else json.dumps(line) for line in lines) + "\n"
    )
    return path


def test_predictions_are_spliced_and_missing_ones_count(tmp_path: Path) -> None:
    bench = make_benchmark(tmp_path)
    preds = _write(
        tmp_path / "preds.jsonl",
        [
            {
                "task": "01-Add",
                "implementation": 1,
                "system": "base",
                "source": function_source("add", "return a + b"),
            },
            {
                "task": "01-Add",
                "implementation": 2,
                "system": "base",
                "source": "```python\ndef mul(a, b):\n    return a * b\n```",
            },
            {
                "task": "02-Calc",
                "implementation": 1,
                "system": "base",
                "source": function_source("add", "return b - a"),
            },
            {"task": "02-Calc", "implementation": 2, "system": "base", "source": "def mul(a, b:\n"},
            {
                "task": "01-Add",
                "implementation": 1,
                "system": "other",
                "source": function_source("add", "return a + b"),
                "model": "x",
            },
            "",
        ],
    )
    out = tmp_path / "out"
    results = run_evaluation(bench, [Submission(preds)], out, backend=LocalBackend())
    verdicts = {(r.system, r.task, r.implementation): r for r in results.runs}
    assert verdicts[("base", "01-Add", 1)].verdict == "pass"
    assert verdicts[("base", "01-Add", 2)].verdict == "pass"
    assert verdicts[("base", "02-Calc", 1)].verdict == "fail"
    broken = verdicts[("base", "02-Calc", 2)]
    assert broken.verdict == "error"
    assert broken.reason.startswith("cannot splice the prediction")
    assert broken.candidate_sha256 is not None
    assert verdicts[("other", "02-Calc", 2)].reason == "no submission"
    assert results.systems["base"].accuracy == 0.5
    assert results.systems["other"].passed == 1

    run = out / "runs" / "base" / "01-Add" / "2"
    spliced = (run / "candidate.py").read_text()
    assert "return a * b" in spliced and "def add(a, b):\n    raise NotImplementedError" in spliced
    assert (run / "prediction.py").read_text().startswith("```python")
    assert (out / "runs" / "base" / "02-Calc" / "2" / "prediction.py").exists()
    assert not (out / "runs" / "base" / "02-Calc" / "2" / "candidate.py").exists()


def test_system_flag_names_lines_without_system(tmp_path: Path) -> None:
    bench = make_benchmark(tmp_path, ("01-Add",))
    preds = _write(
        tmp_path / "p.jsonl",
        [{"task": "01-Add", "implementation": 1, "source": function_source("add", "return a + b")}],
    )
    results = run_evaluation(
        bench, [Submission(preds, "gpt")], tmp_path / "o", backend=LocalBackend()
    )
    assert set(results.systems) == {"gpt"}


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{not json", "(line 2): invalid JSON"),
        ("[1, 2]", "(line 2): a prediction must be a JSON object"),
        ({"implementation": 1, "system": "s", "source": ""}, "(line 2): 'task' must be"),
        ({"task": "01-Add", "implementation": 0, "system": "s", "source": ""}, "1-based"),
        ({"task": "01-Add", "implementation": True, "system": "s", "source": ""}, "1-based"),
        ({"task": "01-Add", "implementation": 1, "system": "s"}, "'source' must be"),
        ({"task": "01-Add", "implementation": 1, "source": ""}, "'system' is missing"),
        ({"task": "01-Add", "implementation": 1, "system": "../x", "source": ""}, "path-safe"),
        (
            {"task": "01-Add", "implementation": 1, "system": "s", "source": "x"},
            "(line 2): a second prediction",
        ),
    ],
)
def test_bad_lines_are_named(tmp_path: Path, line: object, message: str) -> None:
    first = {"task": "01-Add", "implementation": 1, "system": "s", "source": "x"}
    preds = _write(tmp_path / "p.jsonl", [first, line])
    with pytest.raises(UserError) as caught:
        read_predictions(preds)
    assert message in str(caught.value)
    assert str(preds) in str(caught.value)


def test_unknown_implementation_and_empty_file(tmp_path: Path) -> None:
    bench = make_benchmark(tmp_path, ("01-Add",))
    preds = _write(
        tmp_path / "p.jsonl",
        [{"task": "01-Add", "implementation": 7, "system": "s", "source": "x"}],
    )
    with pytest.raises(UserError, match=r"line 1\): task 01-Add has no implementation 7"):
        run_evaluation(bench, [Submission(preds)], tmp_path / "o", backend=LocalBackend())
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    with pytest.raises(UserError, match="no predictions"):
        read_predictions(empty)


def test_published_sample_predictions_read(repo_root: Path) -> None:
    sample = repo_root / "benchmark" / "submissions" / "predictions.jsonl"
    if not sample.exists():
        pytest.skip("no sample predictions in benchmark/")
    predictions = read_predictions(sample)
    assert predictions and all(p.implementation >= 1 for p in predictions)
