"""The endpoint options are one definition: `generate`, `judge` and `eval --judge` refuse
the same bad values at the command line (usage error, exit 2, naming the option), and
accept the same good ones."""

from __future__ import annotations

import pytest

from lmr_author.cli import build_parser

#: (option, a value every command must refuse)
BAD = (
    ("concurrency", "0"),
    ("concurrency", "two"),
    ("timeout", "-1"),
    ("timeout", "nan"),
    ("max-attempts", "0"),
    ("max-tokens", "0"),
)
#: The three ways to give them: the command's words before the options, and the prefix.
COMMANDS = (
    (["generate", "BENCH"], ""),
    (["judge", "RESULTS"], ""),
    (["eval", "BENCH", "-s", "S", "--judge"], "judge-"),
)


@pytest.mark.parametrize(("option", "value"), BAD)
@pytest.mark.parametrize(("words", "prefix"), COMMANDS)
def test_every_command_refuses_a_bad_endpoint_value(
    words: list[str], prefix: str, option: str, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as caught:
        build_parser().parse_args([*words, f"--{prefix}{option}", value])
    assert caught.value.code == 2
    assert f"--{prefix}{option}" in capsys.readouterr().err


@pytest.mark.parametrize(("words", "prefix"), COMMANDS)
def test_every_command_reads_the_same_endpoint_values(words: list[str], prefix: str) -> None:
    given = {"concurrency": "3", "timeout": "7.5", "max-attempts": "2", "max-tokens": "300"}
    argv = [*words]
    for option, value in given.items():
        argv += [f"--{prefix}{option}", value]
    args = vars(build_parser().parse_args(argv))
    dest = "judge_" if words[0] != "generate" else ""
    assert args[dest + "concurrency"] == 3
    assert args[dest + "timeout"] == 7.5
    assert args[dest + "max_attempts"] == 2
    assert args[dest + "max_tokens"] == 300


@pytest.mark.parametrize(
    ("option", "value"),
    [("samples", "0"), ("temperature", "-2"), ("price-in", "-1"), ("max-prompt-tokens", "-5")],
)
def test_generate_refuses_its_own_bad_values(
    option: str, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as caught:
        build_parser().parse_args(["generate", "BENCH", f"--{option}", value])
    assert caught.value.code == 2
    assert f"--{option}" in capsys.readouterr().err
