"""`agreement` flags a per-system judge row that rests on one readable answer (issue 15).

Published-shape inputs: two systems with eight items each; the judge's answers for one
system are prose nobody can read but one, so its judge row is 100 / 0 / 0 with n = 1.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

from rich.cells import cell_len
from rich.console import Console

from lmr_author.cli import main
from lmr_author.commands._render_agreement import print_report, to_markdown
from lmr_author.domain.thin_rows import MARK
from lmr_author.labels.agreement import Options, analyze
from lmr_author.labels.agreement_report import AgreementReport
from lmr_author.labels.report import summary, thin_lines
from lmr_author.labels.sources import load_human_labels, load_judge_source

LONG_MODEL = "claude-3-7-sonnet-20250219-thinking"
THIN = f"openhands_agent-{LONG_MODEL}"


def write_inputs(root: Path) -> tuple[Path, Path]:
    judges = root / "published"
    records = []
    for folder, agent, model in (
        ("BaseAgent", "no_agent", "gpt4o"),
        ("OpenHands", "openhands_agent", LONG_MODEL),
    ):
        out = judges / folder / model
        out.mkdir(parents=True)
        for paper in range(1, 9):
            unread = folder == "OpenHands" and paper > 1
            body = "I cannot decide." if unread else json.dumps({"category": "3"})
            (out / f"{paper}-Task{paper}_repo_0_analysis.txt").write_text(body)
            records.append(
                {
                    "annotator": "Alice",
                    "agent_type": agent,
                    "model_name": model,
                    "paper_index": paper,
                    "function_index": 0,
                    "human_judge_result": 3,
                    "comment": "",
                }
            )
    human = root / "human.json"
    human.write_text(json.dumps(records))
    return judges, human


def report_of(root: Path) -> AgreementReport:
    judges, human = write_inputs(root)
    labels, described = load_human_labels([human])
    return analyze(
        labels, load_judge_source(judges), options=Options(bootstrap=0), inputs={"human": described}
    )


def test_library_flags_the_judge_row_only(tmp_path: Path) -> None:
    report = report_of(tmp_path)
    assert report.thin() == {"judge": {THIN: 4.5}, "human": {}}
    assert thin_lines(report) == [f"judge: {THIN} (n=1, median 4.5)"]
    rows = {row["system"]: row for row in report.to_json()["distribution"]}
    assert rows[THIN]["judge"]["thin"] is True and rows[THIN]["judge"]["n"] == 1
    assert rows["no_agent-gpt4o"]["judge"]["thin"] is False
    assert not any(row["human"]["thin"] for row in rows.values())
    # In the summary's first lines, before any agreement number.
    what = [line[0] for line in summary(report)]
    assert what.index("thin rows") < what.index("LLM vs humans, 3-way")
    markdown = to_markdown(report)
    assert f"1 {MARK}" in markdown and f"Rows marked {MARK} rest on few items" in markdown


def test_terminal_at_80_columns_marks_the_row(tmp_path: Path) -> None:
    report = report_of(tmp_path)
    console = Console(width=80, file=io.StringIO(), color_system=None, record=True)
    print_report(report, limit=50, console=console)
    text = console.export_text()
    lines = text.splitlines()
    assert max(cell_len(line) for line in lines) <= 80
    head = "\n".join(lines[: lines.index(next(x for x in lines if x.startswith("Per system")))])
    assert "thin rows" in head and "n=1, median 4.5" in head
    assert f"1 {MARK}" in text
    assert f"Rows marked {MARK} rest on few items" in text


def test_json_from_the_command(tmp_path: Path, capsys: object) -> None:
    judges, human = write_inputs(tmp_path)
    out = tmp_path / "report.json"
    args = ["agreement", "--human", str(human), "--judge", str(judges), "--bootstrap", "0"]
    # OpenHands' unread judge answers make this a finding (exit 1); the report is written.
    assert main([*args, "--json", "-o", str(out)]) == 1
    rows = {row["system"]: row for row in json.loads(out.read_text())["distribution"]}
    assert rows[THIN]["judge"]["thin"] is True
