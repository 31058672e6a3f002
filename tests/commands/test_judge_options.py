"""The judge's options, defined once: `judge` and `eval --judge` read them into the same
settings, and each option reaches the request it is meant to change."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from lmr_author.cli import build_parser, main
from lmr_author.commands._judge_options import judge_config
from lmr_author.judge.config import JudgeConfig
from tests.support.eval_output import RunSpec, build_eval_output
from tests.support.openai_server import OpenAIServer, Reply

#: Every judge option with a value other than its default: (name, value or None for a
#: flag, the setting it must change, the value that setting must get).
OPTIONS: tuple[tuple[str, str | None, str, object], ...] = (
    ("base-url", "http://127.0.0.1:9/v1", "llm.base_url", "http://127.0.0.1:9/v1"),
    ("model", "judge-x", "llm.model", "judge-x"),
    ("api-key-env", "LMR_TEST_JUDGE_KEY", "llm.api_key", "secret-7"),
    ("concurrency", "3", "llm.concurrency", 3),
    ("timeout", "7.5", "llm.timeout_s", 7.5),
    ("max-attempts", "2", "llm.max_attempts", 2),
    ("temperature", "1", "llm.temperature", 1.0),
    ("max-tokens", "300", "llm.max_tokens", 300),
    ("template", "my-template.j2", "template", Path("my-template.j2")),
    ("judge-scope", "file", "scope", "file"),
    ("no-structured", None, "structured", False),
)


def _setting(config: JudgeConfig, path: str) -> object:
    value: object = config
    for part in path.split("."):
        value = getattr(value, part)
    return value


def _argv(prefix: str) -> list[str]:
    argv: list[str] = []
    for name, value, _, _ in OPTIONS:
        flag = name if name.startswith("judge-") else prefix + name
        argv += [f"--{flag}"] + ([] if value is None else [value])
    return argv


def _parse(argv: list[str]) -> argparse.Namespace:
    return build_parser().parse_args(argv)


def test_judge_and_eval_read_every_judge_option_into_the_same_settings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("LMR_TEST_JUDGE_KEY", "secret-7")
    judge = judge_config(_parse(["judge", "RESULTS", *_argv("")]))
    evaluation = judge_config(_parse(["eval", "BENCH", "-s", "S", "--judge", *_argv("judge-")]))
    assert judge == evaluation
    for name, _, setting, expected in OPTIONS:
        assert _setting(judge, setting) == expected, name


def test_defaults_are_the_same_for_both_commands(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    for name in ("OPENAI_BASE_URL", "OPENAI_MODEL"):
        monkeypatch.delenv(name, raising=False)
    judge = judge_config(_parse(["judge", "RESULTS"]))
    evaluation = judge_config(_parse(["eval", "BENCH", "-s", "S", "--judge"]))
    assert judge == evaluation
    assert (judge.model, judge.scope, judge.structured) == ("gpt-4o", "function", True)


def _judge_flags(command: str) -> dict[str, str]:
    """``dest -> flag`` of the judge's options in one command's parser."""
    parser = build_parser()
    subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    found = {}
    for action in subparsers.choices[command]._actions:
        if action.dest.startswith("judge_"):
            [flag] = action.option_strings
            found[action.dest] = flag
    return found


def test_eval_has_exactly_the_judge_options_with_the_judge_prefix() -> None:
    judge = _judge_flags("judge")
    evaluation = _judge_flags("eval")
    assert len(judge) == len(OPTIONS)
    assert set(evaluation) == set(judge)
    for dest, flag in judge.items():
        expected = flag if flag.startswith("--judge-") else "--judge-" + flag[2:]
        assert evaluation[dest] == expected


@pytest.mark.parametrize("structured", [True, False], ids=["default", "no-structured"])
def test_no_structured_leaves_response_format_out_of_the_request(
    structured: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = build_eval_output(tmp_path, [RunSpec("a")])
    flags = [] if structured else ["--no-structured"]
    with OpenAIServer(default=Reply.answer(3)) as server:
        assert main(["judge", str(output), "--base-url", server.base_url, *flags]) == 0
        [request] = server.requests
    assert ("response_format" in request.body) is structured
    assert "1 asked" in capsys.readouterr().out


def test_judge_timeout_gives_up_on_a_slow_server(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = build_eval_output(tmp_path, [RunSpec("a")])
    with OpenAIServer(default=Reply.answer(3, delay_s=2.0)) as server:
        argv = ["judge", str(output), "--base-url", server.base_url]
        assert main([*argv, "--timeout", "0.3", "--max-attempts", "1"]) == 1
    err = capsys.readouterr().err
    assert "1 run(s) got no answer" in err and "time-out" in err


def test_force_asks_again_what_is_judged_and_cached(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = build_eval_output(tmp_path, [RunSpec("a")])
    with OpenAIServer(default=Reply.answer(3)) as server:
        argv = ["judge", str(output), "--base-url", server.base_url, "--json"]
        counts = []
        for extra in ([], [], ["--force"]):
            assert main([*argv, *extra]) == 0
            summary = json.loads(capsys.readouterr().out)
            counts.append((summary["asked"], summary["kept"], server.request_count))
    assert counts == [(1, 0, 1), (0, 1, 1), (1, 0, 2)]
