"""`generate` against a local OpenAI-compatible server writes predictions that `eval`
scores in Docker as they are; a rerun and a dry run make no request."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lmr_author.cli import main
from tests.generation.generate_support import SAMPLE, answering, correct_sources
from tests.support.openai_server import OpenAIServer

pytestmark = [pytest.mark.docker, pytest.mark.slow]


def test_generated_predictions_score_8_of_8_in_docker(
    tmp_path: Path, docker_client: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    preds, out = tmp_path / "predictions.jsonl", tmp_path / "results"
    with OpenAIServer(answering(correct_sources())) as server:
        argv = ["generate", str(SAMPLE), "--out", str(preds), "--base-url", server.base_url,
                "--model", "scripted-model", "--system", "baseline"]  # fmt: skip
        assert main([*argv, "--dry-run"]) == 0
        assert server.request_count == 0
        assert main(argv) == 0
        assert server.request_count == 8
        assert main(argv) == 0
        assert server.request_count == 8  # the rerun asked nothing
    capsys.readouterr()
    code = main(["eval", str(SAMPLE), "-s", str(preds), "--output", str(out), "--json"])
    results = json.loads(capsys.readouterr().out)
    assert code == 0
    summary = results["systems"]["baseline"]
    assert (summary["passed"], summary["implementations"]) == (8, 8)
