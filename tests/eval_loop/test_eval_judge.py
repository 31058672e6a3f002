"""`lmr-author eval --judge`: unit tests in Docker, then the judge on a local server."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from lmr_author.cli import main
from tests.support.openai_server import OpenAIServer, Reply

pytestmark = [pytest.mark.docker, pytest.mark.slow]

BENCHMARK = Path(__file__).resolve().parents[2] / "benchmark"


@pytest.fixture
def one_task(tmp_path: Path) -> Path:
    """The sample task 03-TopP and its predictions, copied (the image cache key is the
    task's content, so this reuses the sample image when it is built)."""
    bench = tmp_path / "bench"
    shutil.copytree(BENCHMARK / "03-TopP", bench / "03-TopP")
    lines = (BENCHMARK / "submissions" / "predictions.jsonl").read_text().splitlines()
    predictions = tmp_path / "predictions.jsonl"
    predictions.write_text("\n".join(line for line in lines if '"03-TopP"' in line) + "\n")
    return predictions


def test_eval_then_judge_with_a_local_endpoint(
    docker_client: Any,
    one_task: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    output = tmp_path / "out"
    args = ["eval", str(tmp_path / "bench"), "--submission", str(one_task), "-o", str(output)]
    with OpenAIServer(default=Reply.answer(2, ["right idea", "an off-by-one"])) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        assert main([*args, "--judge", "--judge-model", "judge-x"]) == 0
        assert server.request_count == 3  # one judgment per system
        assert {r.body["model"] for r in server.requests} == {"judge-x"}
        assert "top_p_filter" in server.requests[0].prompt
        out = capsys.readouterr().out
        assert "LC" in out and "100.0%" in out
        judgments = sorted((output / "judgments").glob("*/03-TopP/1.json"))
        assert [p.parent.parent.name for p in judgments] == ["correct", "subtle-bug", "wrong-logic"]
        assert {json.loads(p.read_text())["label"] for p in judgments} == {"LC"}
        # Everything again: no container run, no request (runs and answers are kept);
        # --json carries the judge's summary next to the unit tests'.
        capsys.readouterr()
        assert main([*args, "--judge", "--judge-model", "judge-x", "--json"]) == 0
        assert server.request_count == 3
        data = json.loads(capsys.readouterr().out)
        systems = {"correct", "subtle-bug", "wrong-logic"}
        assert set(data["systems"]) == systems
        judge = data["judge"]
        assert judge["model"] == "judge-x" and set(judge["systems"]) == systems
        for name in systems:
            assert judge["systems"][name]["counts"]["LC"] == 1, judge
            assert judge["systems"][name]["percent"]["LC"] == 100.0


def test_eval_judge_without_endpoint_is_a_one_line_notice(
    docker_client: Any,
    one_task: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    args = ["eval", str(tmp_path / "bench"), "-s", str(one_task), "-o", str(tmp_path / "o")]
    assert main([*args, "--judge", "--json"]) == 0
    captured = capsys.readouterr()
    notices = [line for line in captured.err.splitlines() if "judge skipped" in line]
    assert len(notices) == 1 and "OPENAI_BASE_URL" in notices[0]
    assert "no LLM endpoint" in json.loads(captured.out)["judge"]["skipped"]
    assert not (tmp_path / "o" / "judgments").exists()
