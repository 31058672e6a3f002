"""`agreement` in the terminal: a one-screen summary, tables that fit 80 and 200 columns.

Rendered with a fixed-width rich Console into a string, so the test sees exactly what a
terminal of that width shows. Also the small things of issue 15: the bootstrap heading
with --bootstrap 0, the per-system title, one task spelling, missing items, natural sort,
and the --annotator / --system filters.
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from rich.cells import cell_len
from rich.console import Console

from lmr_author.cli import main
from lmr_author.commands._render_agreement import print_report
from lmr_author.domain.identity import display_task, natural_key
from lmr_author.labels import Label, LabelStore
from lmr_author.labels.agreement import Options, analyze
from lmr_author.labels.agreement_report import AgreementReport
from lmr_author.labels.report import sections
from lmr_author.labels.sources import load_human_labels, load_judge_source
from lmr_author.util.errors import UserError
from tests.labels.agreement_fixtures import write_published_scale

#: A model name as long as real ones get, to stress the system column.
LONG_MODEL = "claude-3-7-sonnet-20250219-thinking"
#: Paper indices in an order a string sort gets wrong (1, 11, 13, 2).
PAPERS = (1, 2, 11, 13)


def write_published(root: Path) -> tuple[Path, Path]:
    """Published-shape judge outputs and labels: one annotator per system, 100 % CC for one.

    BaseAgent/gpt4o: judge and human say CC everywhere (so 100.0 shows); OpenHands with a
    long model name: the judge answers prose nobody can read for papers 2 and 13.
    """
    judges = root / "published"
    records = []
    for folder, agent, model, annotator in (
        ("BaseAgent", "no_agent", "gpt4o", "Alice"),
        ("OpenHands", "openhands_agent", LONG_MODEL, "Bob"),
    ):
        out = judges / folder / model
        out.mkdir(parents=True)
        for paper in PAPERS:
            unread = folder == "OpenHands" and paper in (2, 13)
            body = (
                "I looked at the code and cannot decide."
                if unread
                else json.dumps({"category": "3" if folder == "BaseAgent" else "1"})
            )
            (out / f"{paper}-Task{paper}_repo_0_analysis.txt").write_text(body)
            records.append(
                {
                    "annotator": annotator,
                    "agent_type": agent,
                    "model_name": model,
                    "paper_index": paper,
                    "function_index": 0,
                    "human_judge_result": 3 if folder == "BaseAgent" else 2,
                    "comment": "",
                }
            )
    human = root / "human.json"
    human.write_text(json.dumps(records))
    return judges, human


def report_of(root: Path, bootstrap: int = 20, **filters: list[str]) -> AgreementReport:
    judges, human = write_published(root)
    labels, described = load_human_labels([human])
    return analyze(
        labels,
        load_judge_source(judges),
        options=Options(bootstrap=bootstrap),
        inputs={"human": described},
        **filters,
    )


def render(report: AgreementReport, width: int) -> str:
    console = Console(width=width, file=io.StringIO(), color_system=None, record=True)
    print_report(report, limit=50, console=console)
    return console.export_text()


def number_cells(report: AgreementReport) -> set[str]:
    """Every number the tables print at any width (cells of the non-optional number columns)."""
    found = set()
    for section in sections(report, limit=50):
        for i, column in enumerate(section.columns):
            if column.kind == "number" and not column.optional:
                found |= {row[i] for row in section.rows if row[i] not in ("", "–")}
    return found


@pytest.mark.parametrize("width", [80, 200])
def test_tables_fit_the_width_and_numbers_never_split(tmp_path: Path, width: int) -> None:
    report = report_of(tmp_path)
    text = render(report, width)
    lines = text.splitlines()
    assert max(cell_len(line) for line in lines) <= width
    assert "100.0" in number_cells(report)
    for number in number_cells(report):
        # Whole, not cut at a line's end nor continued on the next line.
        assert re.search(rf"(?<![\d.]){re.escape(number)}(?![\d.])", text), number
    assert "no_agent-gpt4o" in text and f"openhands_agent-{LONG_MODEL}" in text


def test_published_scale_at_80_columns_is_short_and_summarised_first(tmp_path: Path) -> None:
    judges, human = write_published_scale(tmp_path)
    labels, described = load_human_labels([human])
    report = analyze(
        labels,
        load_judge_source(judges),
        options=Options(bootstrap=20),
        inputs={"human": described},
    )
    text = render(report, 80)
    lines = text.splitlines()
    summary = lines[: lines.index("")]
    assert len(summary) <= 20  # one screen, with room for the prompt
    head = "\n".join(summary)
    for words in ("agreement", "direct conflicts", "κ", "α", "336 human labels", "unread"):
        assert words in head, words
    assert "A (168" in head and "B (168" in head  # who is included
    assert len(lines) < 150  # 702 before the terminal layout; 50 disagreements shown
    # Disagreements take one line each: no empty verdict or comment columns, no wrapping.
    start = next(i for i, line in enumerate(lines) if line.startswith("Disagreements"))
    rows = [line for line in lines[start + 3 : start + 53]]
    assert all(line.startswith(("no_agent", "openhands_agent")) for line in rows), rows
    assert "verdict" not in lines[start + 1]
    assert max(cell_len(line) for line in lines) <= 80


def test_no_interval_heading_or_column_without_resamples(tmp_path: Path) -> None:
    text = render(report_of(tmp_path / "none", bootstrap=0), 200)
    assert "bootstrap" not in text and "CI" not in text and "[" not in text
    with_intervals = render(report_of(tmp_path / "some", bootstrap=20), 200)
    assert "CI: 95% bootstrap interval" in with_intervals


def test_per_system_title_names_unit_tests_only_with_their_column(tmp_path: Path) -> None:
    (distribution, *_rest) = sections(report_of(tmp_path))
    assert "unit tests" not in distribution.title and "UT%" not in distribution.header


def test_task_names_are_shown_one_way(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert display_task("1-DPO") == display_task("01-DPO") == "01-DPO"
    assert display_task("7") == "07" and display_task("DPO") == "DPO"
    report = report_of(tmp_path)
    text = render(report, 200)
    assert "01-Task1" in text and " 1-Task1" not in text
    store = tmp_path / "labels.sqlite"
    with LabelStore(store) as opened:
        opened.add(Label("Alice", "no_agent-gpt4o", "1-Task1", 1, 3))
    monkeypatch.setenv("COLUMNS", "200")
    assert main(["labels", "list", "--store", str(store)]) == 0
    assert "01-Task1" in capsys.readouterr().out


def test_items_each_labelled_by_one_annotator_are_not_missing(tmp_path: Path) -> None:
    report = report_of(tmp_path)
    assert report.missing == []
    assert set(report.inputs.annotators) == {"Alice", "Bob"}


def test_unread_answers_sort_naturally(tmp_path: Path) -> None:
    report = report_of(tmp_path)
    unread = next(x for x in sections(report) if x.title.startswith("Judge answers"))
    assert [row[1] for row in unread.rows] == ["02-Task2", "13-Task13"]
    assert sorted(["13", "2", "1", "11"], key=natural_key) == ["1", "2", "11", "13"]
    disagreements = next(x for x in sections(report) if x.title.startswith("Disagreements"))
    tasks = [row[1] for row in disagreements.rows]
    assert tasks == sorted(tasks, key=natural_key)


def test_filters_by_annotator_and_system(tmp_path: Path) -> None:
    report = report_of(tmp_path, annotators=["Alice"])
    assert report.inputs.annotators == ["Alice"]
    assert report.inputs.filtered_out == {"human labels of other annotators": 4}
    text = " ".join(render(report, 80).split())
    assert "--annotator Alice" in text and "4 human labels of other annotators" in text
    by_system = report_of(tmp_path / "s", systems=["BaseAgent-gpt4o"])
    assert [row.system for row in by_system.distribution] == ["no_agent-gpt4o"]
    assert by_system.inputs.judge_labels_counted == 4
    with pytest.raises(UserError, match="--system nobody") as caught:
        report_of(tmp_path / "x", systems=["nobody"])
    assert "no_agent-gpt4o" in str(caught.value)


def test_cli_filters(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    judges, human = write_published(tmp_path)
    base = ["agreement", "--human", str(human), "--judge", str(judges), "--bootstrap", "0"]
    # Two of OpenHands' judge answers are unreadable: a finding, so exit 1.
    assert main([*base, "--annotator", "Bob", "--annotator", "Alice", "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["inputs"]["filters"]["annotators"] == ["Bob", "Alice"]
    assert main([*base, "--annotator", "Carol"]) == 2
    assert "--annotator Carol" in capsys.readouterr().err


def test_disagreements_exit_0_and_unread_answers_exit_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Disagreements are results of a successful analysis; only unread answers are findings."""
    judges, human = write_published(tmp_path)
    base = ["agreement", "--human", str(human), "--judge", str(judges), "--bootstrap", "0"]
    assert main([*base, "--json"]) == 1
    assert "2 judge answers could not be read" in capsys.readouterr().err
    for unread in judges.glob("OpenHands/*/*.txt"):
        unread.write_text(json.dumps({"category": "1"}))  # readable, still against Bob's LC
    assert main([*base, "--json"]) == 0
    captured = capsys.readouterr()
    assert len(json.loads(captured.out)["disagreements"]) == 4
    assert captured.err == ""


def test_help_fits_80_columns_and_states_the_exit_codes(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["agreement", "--help"]) == 0
    text = capsys.readouterr().out
    assert max(len(line) for line in text.splitlines()) <= 80
    assert "disagreements included" in text and "could not be read" in text


def test_annotators_without_shared_items_are_one_line_and_pairs_stay_whole(
    tmp_path: Path,
) -> None:
    text = render(report_of(tmp_path), 80)
    # Alice and Bob labelled different systems: no row, no all-zero matrix, one line.
    assert "Alice vs Bob" not in text and "Alice (rows) × Bob" not in text
    assert "1 pair(s) of annotators share no item: Alice and Bob" in " ".join(text.split())
    # The two labels of a disagreement are read on one line, whatever the name lengths.
    disagreements = text[text.index("Disagreements") :]
    assert disagreements.count("Bob: LC, LLM: LI") == 2
