"""`judge` flags a system whose row rests on few judged runs, and its table fits 80 columns."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lmr_author.cli import main
from lmr_author.commands.judge import format_summary
from lmr_author.domain.scoring import LabelCounts, SystemScore, Tally
from lmr_author.domain.thin_rows import MARK
from lmr_author.judge.summary import JudgeSummary
from tests.support.eval_output import RunSpec, build_eval_output
from tests.support.openai_server import OpenAIServer, Reply

LONG = "openhands_agent-claude-3-7-sonnet-20250219-thinking"
TASKS = ("01-Toy", "02-Toy", "03-Toy", "04-Toy")


def scores(name: str, judged: int, cc: int) -> SystemScore:
    judge = LabelCounts({"CC": cc, "LC": 0, "LI": judged - cc})
    return SystemScore(name, runs=judged, unit_tests=Tally(judged, cc), judge=judge)


def test_summary_flags_thin_rows_and_fits_80_columns() -> None:
    summary = JudgeSummary(model="m" * 60)
    for found in (scores("base", 24, 12), scores("agent", 20, 5), scores(LONG, 1, 1)):
        summary.systems[found.system] = found
    summary.systems["never-judged"] = SystemScore("never-judged", runs=3, unanswered=3)
    assert summary.thin() == {LONG: 20.0}
    data = summary.to_json()
    assert data["systems"][LONG]["thin"] is True
    assert data["systems"]["base"]["thin"] is False
    assert data["systems"]["never-judged"]["thin"] is False
    text = format_summary(summary)
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert lines[0].startswith("thin rows: judge:")
    assert "(n=1, median 20)" in " ".join(lines[:2])
    assert f" 1 {MARK} " in text
    assert f"Rows marked {MARK} rest on few items" in text
    # A system never judged shows dashes, not 0.0 % CC / LC / LI.
    (never,) = [line for line in lines if line.startswith("never-judged")]
    assert "0.0%" not in never and never.count("–") >= 3


def test_no_thin_rows_no_mark() -> None:
    summary = JudgeSummary()
    summary.systems = {"a": scores("a", 10, 5), "b": scores("b", 8, 2)}
    text = format_summary(summary)
    assert MARK not in text and "thin rows" not in text


@pytest.fixture
def no_openai_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL"):
        monkeypatch.delenv(name, raising=False)


def test_command_marks_the_thin_system(
    tmp_path: Path,
    server: OpenAIServer,
    no_openai_env: None,
    capsys: pytest.CaptureFixture[str],
) -> None:
    runs = [RunSpec("base", task, index) for task in TASKS for index in (1, 2)]
    runs.append(RunSpec(LONG, "01-Toy", 1))
    output = build_eval_output(tmp_path, runs, tasks=dict.fromkeys(TASKS, 2))
    server.default = Reply.answer(3)
    assert main(["judge", str(output), "--base-url", server.base_url]) == 0
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) <= 80
    assert out.startswith(f"thin rows: judge: {LONG[:30]}")
    assert f" 1 {MARK} " in out
    assert main(["judge", str(output), "--base-url", server.base_url, "--json"]) == 0
    systems = json.loads(capsys.readouterr().out)["systems"]
    assert systems[LONG]["thin"] is True and systems["base"]["thin"] is False
