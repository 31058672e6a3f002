"""The results/run/predictions schemas match what we write; the eval command's errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from lmr_author.cli import main
from lmr_author.eval_loop import RunRecord, Submission, run_evaluation
from tests.eval_loop.evaltasks import (
    CORRECT,
    WRONG,
    LocalBackend,
    make_benchmark,
    make_folder_submission,
)


def _schema(repo_root: Path, name: str) -> dict[str, object]:
    schema: dict[str, object] = json.loads((repo_root / "schemas" / name).read_text())
    Draft202012Validator.check_schema(schema)
    return schema


def _validator(repo_root: Path, name: str) -> Draft202012Validator:
    run = _schema(repo_root, "run.schema.json")
    registry: Registry = Registry().with_resource("run.schema.json", Resource.from_contents(run))
    registry = registry.with_resource("lmr-author/run.schema.json", Resource.from_contents(run))
    return Draft202012Validator(_schema(repo_root, name), registry=registry)


@pytest.fixture
def evaluated(tmp_path: Path) -> Path:
    bench = make_benchmark(tmp_path)
    root = tmp_path / "subs"
    subs = [
        make_folder_submission(root, "good", {"01-Add": CORRECT, "02-Calc": CORRECT}),
        make_folder_submission(root, "bad", {"01-Add": WRONG}),
    ]
    out = tmp_path / "out"
    run_evaluation(
        bench, [Submission(s) for s in subs], out, backend=LocalBackend(broken=("02-Calc",))
    )
    return out


def test_written_files_validate(repo_root: Path, evaluated: Path) -> None:
    results = json.loads((evaluated / "results.json").read_text())
    _validator(repo_root, "results.schema.json").validate(results)
    verdicts = {run["verdict"] for run in results["runs"]}
    assert verdicts == {"pass", "fail", "error", "infra-error"}
    run_validator = _validator(repo_root, "run.schema.json")
    for path in evaluated.glob("runs/*/*/*/run.json"):
        run_validator.validate(json.loads(path.read_text()))


def test_schema_and_model_agree(repo_root: Path, evaluated: Path) -> None:
    schema = _schema(repo_root, "run.schema.json")
    record = next(iter(evaluated.glob("runs/*/*/*/run.json")))
    written = RunRecord.from_json(json.loads(record.read_text())).to_json()
    properties = schema["properties"]
    assert isinstance(properties, dict)
    assert set(written) == set(properties)
    assert set(schema["required"]) <= set(written)  # type: ignore[arg-type]
    bad = dict(written, verdict="passed")
    assert list(_validator(repo_root, "run.schema.json").iter_errors(bad))


def test_predictions_schema(repo_root: Path) -> None:
    validator = _validator(repo_root, "predictions.schema.json")
    good = {"task": "01-DPO", "implementation": 1, "system": "gpt-4o", "source": "def f(): ..."}
    validator.validate(good)
    assert list(validator.iter_errors(dict(good, implementation=0)))
    assert list(validator.iter_errors(dict(good, system="a/b")))
    sample = repo_root / "benchmark" / "submissions" / "predictions.jsonl"
    if sample.exists():
        for line in sample.read_text().splitlines():
            validator.validate(json.loads(line))


def test_cli_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bench = make_benchmark(tmp_path, ("01-Add",))
    sub = make_folder_submission(tmp_path / "subs", "good", {"01-Add": CORRECT})
    cases = [
        (["--submission", str(tmp_path / "nope")], "no such submission"),
        (["--submission", str(sub), "--task", "09-X"], "no such task: 09-X"),
        (["--submission", str(sub), "--workers", "0"], "--workers must be at least 1"),
        (["--submission", str(sub), "--system", "a b"], "not path-safe"),
    ]
    for extra, message in cases:
        code = main(["eval", str(bench), "--output", str(tmp_path / "o"), *extra])
        err = capsys.readouterr().err
        assert code == 2, (extra, err)
        assert message in err
        assert "Traceback" not in err
        assert len(err.strip().splitlines()) == 1

    # argparse's own errors (with the usage line) for misplaced --system
    for extra, message in [
        (["--system", "a", "--submission", str(sub)], "give --submission first"),
        (["--submission", str(sub), "--system", "a", "--system", "b"], "--system given twice"),
    ]:
        code = main(["eval", str(bench), *extra])
        err = capsys.readouterr().err
        assert code == 2 and message in err, err


def test_cli_unreachable_engine_is_infra_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # a port on our own loopback where nothing listens: the engine is unreachable
    monkeypatch.setenv("DOCKER_HOST", "tcp://127.0.0.1:9")
    bench = make_benchmark(tmp_path, ("01-Add",))
    sub = make_folder_submission(tmp_path / "subs", "good", {"01-Add": CORRECT})
    out = tmp_path / "o"
    code = main(["eval", str(bench), "--submission", str(sub), "--output", str(out), "--json"])
    captured = capsys.readouterr()
    assert code == 1, captured.err
    results = json.loads(captured.out)
    summary = results["systems"]["good"]
    assert summary["verdicts"]["infra-error"] == 2
    assert summary["accuracy"] is None
    assert "Docker engine" in summary["infra_errors"][0]["reason"]
    assert json.loads((out / "results.json").read_text()) == results
