"""`labels list` at 80 and 200 columns (and piped): whole task names, compact times."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from lmr_author.cli import main
from lmr_author.labels import Label, LabelStore

LONG_SYSTEM = "openhands_agent-claude-3-7-sonnet-20250219-thinking"
COMMENT = "looks right to me although the scaling of the attributions differs a little"


@pytest.mark.parametrize("width", [80, 200])
def test_task_names_whole_and_times_compact(
    tmp_path: Path, width: int, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    store = tmp_path / "labels.sqlite"
    with LabelStore(store) as opened:
        opened.add(Label("alice", LONG_SYSTEM, "7-IntegratedGradients", 1, 3, comment=COMMENT))
        opened.add(Label("bob", "no_agent-gpt4o", "12-KnowledgeProbing", 2, 1))
    monkeypatch.setenv("COLUMNS", str(width))
    assert main(["labels", "list", "--store", str(store)]) == 0
    out = capsys.readouterr().out  # captured, so rich renders as when piped
    lines = out.splitlines()
    assert max(len(line) for line in lines) <= width
    # Every name on one line of its own row, never cut or broken mid-word.
    for name in ("07-IntegratedGradients", "12-KnowledgeProbing", LONG_SYSTEM, "no_agent-gpt4o"):
        assert any(name in line for line in lines), name
    # Times as "2026-11-23 16:29" on the row's line, not the stored ISO stamp.
    rows = [line for line in lines if " 1 LI " in line or " 3 CC " in line]
    assert len(rows) == 2
    assert all(re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d(?!:)", line) for line in rows)
    assert not re.search(r"T\d\d:\d\d", out)


def test_timestamps_other_than_iso_are_shown_as_they_are() -> None:
    from lmr_author.commands.labels import _compact_time

    assert _compact_time("2026-11-23T16:29:01.123Z") == "2026-11-23 16:29"
    assert _compact_time("2026-11-23T17:29:01+01:00") == "2026-11-23 16:29"
    assert _compact_time("yesterday") == "yesterday"
