"""The command line as a whole: help everywhere, exit codes, and headless imports."""

from __future__ import annotations

import argparse
import subprocess
import sys

import pytest

from lmr_author.cli import build_parser, main


def command_names() -> list[str]:
    parser = build_parser()
    actions = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return sorted(actions[0].choices)


def subcommand_paths() -> list[list[str]]:
    """Every command and nested action (e.g. ``sandbox build``)."""
    parser = build_parser()
    paths: list[list[str]] = []

    def walk(current: argparse.ArgumentParser, prefix: list[str]) -> None:
        for action in current._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, child in action.choices.items():
                    paths.append([*prefix, name])
                    walk(child, [*prefix, name])

    walk(parser, [])
    return paths


def test_top_level_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    assert "usage: lmr-author" in out and "exit codes" in out
    for name in command_names():
        assert name in out


def test_every_command_is_listed() -> None:
    assert {"validate", "eval", "judge", "agreement", "sandbox", "new-task"} <= set(command_names())


@pytest.mark.parametrize("path", subcommand_paths(), ids=" ".join)
def test_command_help(path: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*path, "--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: lmr-author " + " ".join(path))


def test_unknown_command_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["no-such-command"]) == 2
    assert "invalid choice" in capsys.readouterr().err


def test_unknown_option_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "--no-such-option"]) == 2


def test_no_command_prints_help_and_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert "usage: lmr-author" in capsys.readouterr().out


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.startswith("lmr-author ")


def test_validate_runs_as_a_program() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "lmr_author", "validate", "/no/such/path"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 2
    assert "Traceback" not in result.stderr and "no such file or folder" in result.stderr
