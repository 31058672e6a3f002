"""``eval``, ``judge`` and ``review`` help: every line fits 80 columns, whatever the
terminal, and every option the command takes is explained."""

from __future__ import annotations

import argparse

import pytest

from lmr_author.cli import build_parser, main

COMMANDS = ("eval", "judge", "review")


def shown_options(command: str) -> list[str]:
    """The flags of ``command`` whose help is shown (eval hides review's options)."""
    parser = build_parser()
    subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return [
        flag
        for action in subparsers.choices[command]._actions
        if action.help != argparse.SUPPRESS
        for flag in action.option_strings
    ]


@pytest.mark.parametrize("columns", ["60", "80", "200"])
@pytest.mark.parametrize("command", COMMANDS)
def test_every_line_of_help_fits_80_columns(
    command: str, columns: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COLUMNS", columns)
    assert main([command, "--help"]) == 0
    text = capsys.readouterr().out
    assert [line for line in text.splitlines() if len(line) > 80] == []
    for flag in shown_options(command):
        assert flag in text
    assert "exit codes:" in text


def test_eval_help_lists_the_slurm_options_and_points_to_review(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["eval", "--help"]) == 0
    text = capsys.readouterr().out
    for option in ("--mem", "--time", "--account", "--qos", "--sbatch-arg", "--max-in-flight"):
        assert option in text
    assert "--human-review" in text and "lmr-author review --help" in text
    assert "--show-systems" not in text  # review's options are explained by review


def test_review_help_explains_the_folder_and_every_option(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["review", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "RESULTS_DIR is the folder 'lmr-author eval' wrote" in text
    assert "1 LI logically incorrect" in text and "3 CC completely correct" in text
    assert set(shown_options("review")) == {
        *("-h", "--help", "--annotator", "--store", "--sample", "--seed"),
        *("--show-verdicts", "--show-systems"),
    }
