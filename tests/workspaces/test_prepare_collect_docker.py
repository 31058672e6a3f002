"""prepare -> (an agent edits) -> collect -> eval in Docker: the sample `correct` code scores
8/8, and an edit to a test file is reported and not scored."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from lmr_author.cli import main

pytestmark = [pytest.mark.docker, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "benchmark"
CORRECT = SAMPLE / "submissions" / "correct"


def test_workspaces_with_correct_code_collect_into_a_submission_that_scores_8_of_8(
    tmp_path: Path, docker_client: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    # The folder's name is not the system's: eval takes the name collect recorded.
    ws, sub, out = tmp_path / "ws", tmp_path / "subs", tmp_path / "results"
    assert main(["prepare", str(SAMPLE), "--out", str(ws)]) == 0
    manifest = json.loads((ws / "lmr-workspaces.json").read_text())
    for entry in manifest["workspaces"]:
        shutil.copy(
            CORRECT / entry["task"] / entry["goal_file"], ws / entry["path"] / entry["goal_file"]
        )
    # The agent also "fixes" a test so that it always passes: listed, never scored.
    test = ws / "01-DPO" / "1" / "dpo-numpy" / "unit_test" / "unit_test_1.py"
    test.write_text("print('Test Passed')\n")
    capsys.readouterr()

    assert main(["collect", str(ws), "--system", "agentx", "--out", str(sub), "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["collected"] == 8
    assert [(c["task"], c["path"], c["change"], c["kind"]) for c in report["changes"]] == [
        ("01-DPO", "dpo-numpy/unit_test/unit_test_1.py", "modified", "test")
    ]
    assert not list(sub.rglob("unit_test_1.py"))  # the edited test is not in the submission

    code = main(["eval", str(SAMPLE), "-s", str(sub), "--output", str(out), "--json"])
    results = json.loads(capsys.readouterr().out)
    assert code == 0
    assert list(results["systems"]) == ["agentx"]
    summary = results["systems"]["agentx"]
    assert (summary["passed"], summary["implementations"]) == (8, 8)

    # The same workspaces with the masked function left in 01-DPO: that one fails in
    # Docker although its edited test "passes" everywhere, because the benchmark's test runs.
    shutil.copy(
        SAMPLE / "01-DPO" / "dpo-numpy" / "dpo" / "losses.py",
        ws / "01-DPO" / "1" / "dpo-numpy" / "dpo" / "losses.py",
    )
    sub2 = tmp_path / "agent2"
    assert main(["collect", str(ws), "--system", "agent2", "--out", str(sub2)]) == 1
    capsys.readouterr()
    code = main(
        ["eval", str(SAMPLE), "-s", str(sub2), "--output", str(out), "--json", "--task", "01-DPO"]
    )
    results = json.loads(capsys.readouterr().out)
    verdicts = {(r["system"], r["task"]): r["verdict"] for r in results["runs"]}
    assert verdicts[("agent2", "01-DPO")] != "pass"
