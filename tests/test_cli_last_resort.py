"""The CLI's last resort: a bug becomes one "internal error" paragraph, exit 2."""

from __future__ import annotations

import argparse

import pytest

from lmr_author import cli
from lmr_author.commands import labels


def _crash(_args: argparse.Namespace) -> int:
    raise KeyError("no such thing")


def test_an_unexpected_exception_is_one_paragraph(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(labels, "_list", _crash)
    assert cli.main(["labels", "list"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert err.count("\n") == 1 and err.startswith("lmr-author: internal error: KeyError")
    assert "test_cli_last_resort.py" in err and "LMR_AUTHOR_DEBUG=1" in err
    monkeypatch.setenv("LMR_AUTHOR_DEBUG", "1")
    assert cli.main(["labels", "list"]) == 2
    assert "Traceback" in capsys.readouterr().err
