"""The published labels and judge outputs give the paper's agreement figures.

`tests/support/published_set.py` writes a 168-item set in the published file shapes with
the published counts (see its docstring for how each number follows): four human label
files, one on a 0..2 scale imported with ``--shift 1``, and judge outputs in
``<agent>/<model>/`` folders, 27 of them ending in a bare digit.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lmr_author.cli import main
from tests.support.published_set import write_published_set


def _agreement(
    store: Path, judge: Path, capsys: pytest.CaptureFixture[str], *, unread: bool = False
) -> dict:
    argv = ["agreement", "--human", str(store), "--judge", str(judge), "--json"]
    # Unread judge answers are a finding (exit 1); a full read exits 0.
    assert main([*argv, "--bootstrap", "0"]) == (1 if unread else 0)
    report: dict = json.loads(capsys.readouterr().out)
    return report


def _import_all(files: list[Path], store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["labels", "import", "--store", str(store), *map(str, files[:3])]) == 0
    capsys.readouterr()
    # The 0..2 file is refused, naming the option; nothing of any file is imported.
    assert main(["labels", "import", "--store", str(store), *map(str, files)]) == 2
    err = capsys.readouterr().err
    assert "labels-ann4.json" in err and "0..2 scale" in err and "--shift 1" in err
    assert "no label of any file was imported" in err
    # A dry run previews the conversion and writes nothing.
    dry = ["labels", "import", "--store", str(store), "--shift", "1", "--dry-run", str(files[3])]
    assert main(dry) == 0
    out = capsys.readouterr().out
    assert "human_judge_result 0 -> 1 LI" in out and "per label: 1 LI: 26, 2 LC: 8, 3 CC: 8" in out
    assert "nothing was imported" in out
    assert main(["labels", "import", "--store", str(store), "--scale", "0-2", str(files[3])]) == 0
    assert "imported 42 labels" in capsys.readouterr().out


def test_the_published_set_gives_the_papers_agreement(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files, judge = write_published_set(tmp_path)
    store = tmp_path / "labels.sqlite"
    _import_all(files, store, capsys)
    report = _agreement(store, judge, capsys)
    assert report["inputs"]["human_labels_counted"] == 168
    assert report["inputs"]["judge_labels_counted"] == 168
    versus = report["three_way"]["judge_vs_human"]
    assert round(100 * versus["percent_agreement"]["value"], 1) == 62.5  # 105 / 168
    assert round(100 * versus["direct_conflict_rate"]["value"], 1) == 9.5  # 16 / 168
    assert report["unparsed"] == []
    legacy = next(row for row in report["distribution"] if row["system"] == "LegacyAgent-gpt4")
    assert legacy["judge"]["n"] == 28


def test_without_the_trailing_digit_the_numbers_drift_as_the_issue_says(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """What a parser that misses the trailing digit reports: 141 judge labels, 64.5 / 8.5."""
    files, judge = write_published_set(tmp_path)
    for path in judge.rglob("*_analysis.txt"):
        text = path.read_text()
        if not text.lstrip().startswith(("{", "Comparing the two")):
            path.write_text(text.rstrip()[:-1] + "no category given\n")
    store = tmp_path / "labels.sqlite"
    _import_all(files, store, capsys)
    report = _agreement(store, judge, capsys, unread=True)
    assert report["inputs"]["judge_labels_counted"] == 141
    versus = report["three_way"]["judge_vs_human"]
    assert round(100 * versus["percent_agreement"]["value"], 1) == 64.5  # 91 / 141
    assert round(100 * versus["direct_conflict_rate"]["value"], 1) == 8.5  # 12 / 141
    assert len(report["unparsed"]) == 27
