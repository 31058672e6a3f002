"""`lmr-author judge` through the real CLI entry point and a real local server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lmr_author.cli import main
from tests.support.eval_output import RunSpec, build_eval_output
from tests.support.openai_server import OpenAIServer, Reply


@pytest.fixture
def no_openai_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL"):
        monkeypatch.delenv(name, raising=False)


def test_json_summary(
    tmp_path: Path,
    server: OpenAIServer,
    no_openai_env: None,
    capsys: pytest.CaptureFixture[str],
) -> None:
    output = build_eval_output(tmp_path, [RunSpec("a"), RunSpec("b", verdict="fail")])
    server.default = Reply.answer(2)
    code = main(["judge", str(output), "--base-url", server.base_url, "--json"])
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    assert data["asked"] == 2 and data["model"] == "gpt-4o"
    assert data["systems"]["a"]["percent"]["LC"] == 100.0
    assert data["systems"]["b"]["unit_test_accuracy"] == 0.0
    assert server.requests[0].headers["authorization"] == "Bearer not-needed"
    assert server.requests[0].body["temperature"] == 0.0
    assert "max_tokens" not in server.requests[0].body
    code = main(
        [
            *("judge", str(output), "--base-url", server.base_url, "--json"),
            *("--temperature", "1", "--max-tokens", "300"),
        ]
    )
    assert code == 0
    assert json.loads(capsys.readouterr().out)["asked"] == 2  # new parameters: asked again
    assert (server.requests[-1].body["temperature"], server.requests[-1].body["max_tokens"]) == (
        1.0,
        300,
    )


def test_table_and_env(
    tmp_path: Path,
    server: OpenAIServer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    output = build_eval_output(tmp_path, [RunSpec("gpt4o-agent")])
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("MY_KEY", "secret-1")
    monkeypatch.setenv("OPENAI_MODEL", "env-model")
    code = main(["judge", str(output), "--api-key-env", "MY_KEY", "--judge-scope", "file"])
    assert code == 0
    out = capsys.readouterr().out
    assert "gpt4o-agent" in out and "100.0%" in out and "1 asked" in out
    assert server.requests[0].headers["authorization"] == "Bearer secret-1"
    assert server.requests[0].body["model"] == "env-model"
    code = main(["judge", str(output), "--api-key-env", "MY_KEY", "--judge-scope", "file"])
    assert code == 0
    assert "1 kept" in capsys.readouterr().out
    assert server.request_count == 1
    code = main(["judge", str(output), "--api-key-env", "MY_KEY"])  # function scope
    assert code == 0
    assert "1 asked" in capsys.readouterr().out
    assert server.request_count == 2


def test_not_configured_is_a_notice(
    tmp_path: Path, no_openai_env: None, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["judge", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1
    assert "OPENAI_BASE_URL" in err and "OPENAI_API_KEY" in err


def test_unset_key_variable(
    tmp_path: Path, no_openai_env: None, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["judge", str(tmp_path), "--api-key-env", "NOPE_KEY"]) == 2
    assert "NOPE_KEY" in capsys.readouterr().err


def test_bad_folder_and_template(
    tmp_path: Path, server: OpenAIServer, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["judge", str(tmp_path / "missing"), "--base-url", server.base_url]) == 2
    assert "no such folder" in capsys.readouterr().err
    output = build_eval_output(tmp_path, [RunSpec("a")])
    bad = tmp_path / "t.md"
    bad.write_text("$nonsense")
    code = main(["judge", str(output), "--base-url", server.base_url, "--template", str(bad)])
    assert code == 2
    err = capsys.readouterr().err
    assert "t.md" in err and "Traceback" not in err
    assert server.request_count == 0


def test_unanswered_requests_exit_1(
    tmp_path: Path, server: OpenAIServer, no_openai_env: None, capsys: pytest.CaptureFixture[str]
) -> None:
    output = build_eval_output(tmp_path, [RunSpec("a")])
    server.default = Reply.error(503, "overloaded")
    args = ["judge", str(output), "--base-url", server.base_url, "--max-attempts", "1"]
    assert main(args) == 1
    err = capsys.readouterr().err
    assert "run the same command again" in err.lower()
    assert "HTTP 503: overloaded" in err.splitlines()[0]
    server.default = Reply.answer(3)
    assert main(args) == 0
