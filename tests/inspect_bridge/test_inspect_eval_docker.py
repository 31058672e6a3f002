"""The sample benchmark in Inspect, for real: mock-model replay of the bundled predictions
gives the verdicts of ``lmr-author eval`` on the same predictions, run for run, and
``report`` reads the Inspect logs as it reads the eval output; the judge's label comes
from a real chat-completions server on loopback."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog, read_eval_log

from lmr_author.cli import main
from lmr_author.inspect_bridge.explain import head
from lmr_author.inspect_bridge.task import lmr_bench
from tests.support.eval_cli import eval_json
from tests.support.openai_server import OpenAIServer, Reply

pytestmark = [pytest.mark.docker, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "benchmark"
PREDICTIONS = SAMPLE / "submissions" / "predictions.jsonl"
SYSTEMS = ("correct", "subtle-bug", "wrong-logic")


def _replay(system: str, output: Path, **args: Any) -> Any:
    return lmr_bench(
        benchmark=str(SAMPLE),
        replay=str(PREDICTIONS),
        system=system,
        output=str(output),
        timeout=60,
        **args,
    )


def _runs(log: EvalLog) -> dict[tuple[str, str, int], dict[str, Any]]:
    assert log.status == "success", log.error
    found = {}
    for sample in log.samples or []:
        run = sample.scores["lmr_verdict"].metadata["lmr_run"]  # type: ignore[index,union-attr]
        found[(run["system"], run["task"], run["implementation"])] = run
    return found


def test_inspect_replay_gives_the_verdicts_of_eval_and_report_reads_the_logs(
    tmp_path: Path, docker_client: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    stored = eval_json(SAMPLE, [PREDICTIONS], tmp_path / "eval", capsys)
    expected = {(r["system"], r["task"], r["implementation"]): r for r in stored["runs"]}
    logs = inspect_eval(
        [_replay(system, tmp_path / "inspect-runs", workers=2) for system in SYSTEMS],
        log_dir=str(tmp_path / "logs"),
        display="none",
        max_tasks=len(SYSTEMS),
    )
    got: dict[tuple[str, str, int], dict[str, Any]] = {}
    for log in logs:
        got.update(_runs(read_eval_log(log.location)))
    assert set(got) == set(expected)
    for key, run in expected.items():
        # Same candidate, image, settings and task: the same run key, verdict and reason.
        assert got[key]["run_key"] == run["run_key"], key
        assert (got[key]["verdict"], got[key]["reason"]) == (run["verdict"], run["reason"])
    accuracy = {
        log.eval.task_args["system"]: log.results.scores[0].metrics["unit_test_accuracy"].value  # type: ignore[union-attr]
        for log in logs
    }
    assert accuracy == {"correct": 1.0, "subtle-bug": 0.0, "wrong-logic": 0.0}
    for log in logs:
        for sample in read_eval_log(log.location).samples or []:
            score = sample.scores["lmr_verdict"]  # type: ignore[index]
            run, failures = score.metadata["lmr_run"], score.metadata["lmr_failures"]  # type: ignore[index]
            if run["verdict"] == "pass":
                assert (score.explanation, failures) == ("all tests passed", [])
                continue
            # The replay tests print nothing; the explanation says so after the reason.
            assert str(score.explanation).startswith(head(run["reason"]))
            assert [f["test_file"] for f in failures] == [
                t["test_file"] for t in run["tests"] if t["verdict"] != "pass"
            ]
            assert "printed nothing" in str(score.explanation)

    capsys.readouterr()
    assert main(["report", str(tmp_path / "eval"), "--no-human", "--format", "json"]) == 0
    from_eval = json.loads(capsys.readouterr().out)
    argv = ["report", *[str(log.location) for log in logs], "--no-human", "--format", "json"]
    assert main(argv) == 0
    from_logs = json.loads(capsys.readouterr().out)

    def rows(report: dict[str, Any]) -> dict[str, Any]:
        return {row["system"]: (row["unit_tests"], row["categories"]) for row in report["systems"]}

    assert rows(from_logs) == rows(from_eval)
    assert {row["origin"] for row in from_logs["systems"]} == {str(log.location) for log in logs}
    assert from_logs["category_distribution"] == from_eval["category_distribution"]


def test_the_judge_label_is_a_score_and_report_counts_it(
    tmp_path: Path,
    docker_client: Any,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    with OpenAIServer(lambda request: Reply.answer(2)) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "test")
        task = _replay("correct", tmp_path / "runs", judge=True, tasks="01-DPO,02-BLEU")
        (log,) = inspect_eval(task, log_dir=str(tmp_path / "logs"), display="none")
    assert log.status == "success", log.error
    read = read_eval_log(log.location)
    for sample in read.samples or []:
        judged = sample.scores["lmr_judge"]  # type: ignore[index]
        assert judged.value == "LC"
        assert judged.metadata["lmr_judgment"]["category"] == 2  # type: ignore[index]
    judge_scores = [s for s in read.results.scores if s.name == "lmr_judge"]  # type: ignore[union-attr]
    assert judge_scores[0].metrics["LC"].value == 1.0
    assert main(["report", str(log.location), "--no-human", "--format", "json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)["systems"]
    assert row["judge"]["counts"] == {"CC": 0, "LC": len(read.samples or []), "LI": 0}
