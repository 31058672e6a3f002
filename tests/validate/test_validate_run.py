"""`lmr-author validate --run`: the dynamic proof in Docker, after the static rules."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from lmr_author.cli import main

MakeTask = Callable[..., Path]


def test_run_skips_tasks_with_static_errors(
    make_task: MakeTask, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken(data: dict) -> None:
        data["implementations"][0]["goal_function"] = "missing"

    task = make_task(info=broken)
    assert main(["validate", "--run", "--json", str(task)]) == 1
    captured = capsys.readouterr()
    assert "tests not proven in Docker" in captured.err
    rules = {f["rule"] for f in json.loads(captured.out)["tasks"][0]["findings"]}
    assert "function-not-found" in rules
    assert not rules & {"golden-fails", "test-does-not-discriminate", "infra"}


@pytest.mark.docker
@pytest.mark.slow
def test_run_proves_a_sample_task(
    docker_client: Any, repo_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sample = repo_root / "benchmark" / "01-DPO"
    if not sample.is_dir():
        pytest.skip("the sample benchmark is not there")
    task = tmp_path / "01-DPO"
    shutil.copytree(sample, task)
    code = main(["validate", "--run", "--json", "--timeout", "120", str(task)])
    document = json.loads(capsys.readouterr().out)
    findings = document["tasks"][0]["findings"]
    assert code == 0, findings
    assert [f for f in findings if f["severity"] == "error"] == []


def test_run_rules_are_in_the_registry(
    make_task: MakeTask, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["validate", "--list-rules", "--json"]) == 0
    rules = {r["rule"]: r for r in json.loads(capsys.readouterr().out)}
    assert {rule: (rules[rule]["stage"], rules[rule]["severity"]) for rule in RUN_RULES} == {
        "golden-fails": ("run", "error"),
        "test-does-not-discriminate": ("run", "error"),
        "flaky": ("run", "warning"),
        "infra": ("run", "error"),
        "not-isolated": ("run", "warning"),
        "undeclared-gpu": ("run", "warning"),
        "answer-leak-installed": ("run", "error"),
    }
    # Refused as an unknown rule id before the run rules were registered.
    assert main(["validate", "--ignore", "flaky", str(make_task())]) == 0


RUN_RULES = (
    "answer-leak-installed",
    "golden-fails",
    "test-does-not-discriminate",
    "flaky",
    "infra",
    "not-isolated",
    "undeclared-gpu",
)


def test_ignored_run_rules_are_dropped_from_the_proof(
    make_task: MakeTask, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from lmr_author.validate import dynamic
    from lmr_author.validate.rules_run import run_finding

    def fake_proof(task: Any, **_: Any) -> list[Any]:
        return [run_finding("flaky", "two runs disagree"), run_finding("infra", "no engine")]

    monkeypatch.setattr(dynamic, "run_dynamic_checks", fake_proof)
    task = str(make_task())
    assert main(["validate", "--run", "--json", str(task)]) == 1
    found = [f["rule"] for f in json.loads(capsys.readouterr().out)["tasks"][0]["findings"]]
    assert found == ["flaky", "infra"]
    assert main(["validate", "--run", "--json", "--ignore", "infra", "--strict", task]) == 1
    found = [f["rule"] for f in json.loads(capsys.readouterr().out)["tasks"][0]["findings"]]
    assert found == ["flaky"]
    assert main(["validate", "--run", "--json", "--ignore", "infra,flaky", "--strict", task]) == 0


def test_run_rules_are_listed_last_whoever_imports_them_first() -> None:
    code = (
        "import lmr_author.validate.dynamic\n"
        "from lmr_author.validate.rules import all_rules\n"
        "print(' '.join(r.stage for r in all_rules()))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stderr
    stages = result.stdout.split()
    assert stages[-len(RUN_RULES) :] == ["run"] * len(RUN_RULES)
    assert "run" not in stages[: -len(RUN_RULES)]
