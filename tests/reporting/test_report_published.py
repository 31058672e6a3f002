"""`report` on published results alone: Table 2, Table 6 and Figure 2 as an independent
count of the builder's items gives them, and footnotes naming every printed cell that
the files do not reproduce."""

from __future__ import annotations

import json
import re
from collections import Counter
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from pathlib import Path

import pytest

from lmr_author.cli import main
from tests.support.published_results import (
    PRINTED_DIFFERENCES,
    SYSTEMS,
    TASKS,
    items,
    printed_table,
    write_benchmark,
    write_published_results,
)

LABELS = {"CC": 3, "LC": 2, "LI": 1}


def _percent(part: int, whole: int) -> float | None:
    return None if not whole else float(Fraction(100 * part, whole))


def expected_table2() -> dict[str, dict[str, float | None]]:
    """Per canonical system, Table 2's cells, counted straight from the items."""
    table: dict[str, dict[str, float | None]] = {}
    for agent, model, agent_type, has_results in SYSTEMS:
        mine = [x for x in items() if (x.agent, x.model) == (agent, model)]
        cells: dict[str, float | None] = {
            "unit test": _percent(sum(x.passed for x in mine), len(mine)) if has_results else None
        }
        for short, value in LABELS.items():
            cells[f"judge {short}"] = _percent(sum(x.judge == value for x in mine), len(mine))
            cells[f"human {short}"] = _percent(sum(x.human == value for x in mine), len(mine))
        table[f"{agent_type}-{model}"] = cells
    return table


def shown(value: float | None) -> str:
    if value is None:
        return "–"
    return str(Decimal(repr(value)).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))


@pytest.fixture
def published(tmp_path: Path) -> tuple[Path, Path, Path]:
    results = write_published_results(tmp_path)
    benchmark = write_benchmark(tmp_path / "benchmark")
    printed = printed_table(tmp_path / "printed.json", expected_table2())
    return results, benchmark, printed


def _table(text: str, title: str) -> dict[str, list[str]]:
    """The rows of a Markdown table by first cell (footnote marks removed)."""
    section = text.split(f"## {title}", 1)[1].split("\n## ", 1)[0]
    rows: dict[str, list[str]] = {}
    lines = [line for line in section.splitlines() if line.startswith("| ")]
    for line in lines[1:]:  # after the header
        cells = [re.sub(r"(\[[a-z]+\])+$", "", c.strip()) for c in line.strip("|").split("|")]
        rows[cells[0].removesuffix(" (published)")] = cells[1:]
    return rows


def test_table2_table6_and_figure2_from_published_files_alone(
    published: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    results, benchmark, printed = published
    args = ["report", str(results), "--benchmark", str(benchmark)]
    assert main([*args, "--compare-printed", str(printed)]) == 0
    text = capsys.readouterr().out
    expected = expected_table2()

    table2 = _table(text, "Table 2")
    assert sorted(table2) == sorted(expected)
    for system, cells in expected.items():
        row = table2[system]
        got = {
            "unit test": row[1],
            "judge CC": row[3],
            "judge LC": row[4],
            "judge LI": row[5],
            "human CC": row[7],
            "human LC": row[8],
            "human LI": row[9],
        }
        assert got == {column: shown(value) for column, value in cells.items()}, system
        assert row[6].rstrip("*") == row[10].rstrip("*") == "7"  # judged, labelled

    table6 = _table(text, "Table 6")
    for system, cells in expected.items():
        judge_cc, human_cc = cells["judge CC"], cells["human CC"]
        assert table6[system][1:] == [
            shown(judge_cc),
            shown(None if judge_cc is None else 100 - judge_cc),
            shown(human_cc),
            shown(None if human_cc is None else 100 - human_cc),
        ]

    figure2 = _table(text, "Category distribution")
    counts = Counter(category or "(no category)" for *_, n, _, category in TASKS for _ in range(n))
    total = sum(counts.values())
    for category, n in counts.items():
        assert figure2[category] == [str(n), shown(100 * n / total)]
    assert len(figure2) == 9 + 1  # the paper's nine, and the one without a category
    assert "ann2.json: labels on the 0..2 scale" in text


def test_footnotes_name_the_cells_that_differ_from_the_printed_table(
    published: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    results, benchmark, printed = published
    args = ["report", str(results), "--benchmark", str(benchmark), "--format", "json"]
    assert main([*args, "--compare-printed", str(printed)]) == 0
    footnotes = json.loads(capsys.readouterr().out)["footnotes"]
    groups = {(f["system"], f["cells"][0]["column"].split(" ")[0]) for f in footnotes}
    assert groups == {(system, group.split(" ")[0]) for system, group in PRINTED_DIFFERENCES}
    why = {(f["system"], f["cells"][0]["column"].split(" ")[0]): f["why"] for f in footnotes}
    assert "no input" in why[("no_agent-gpt4o", "unit")]
    assert "swapped" in why[("no_agent-gpt4o", "human")]
    assert "swapped" in why[("no_agent-gpt4.1", "human")]
    passed = sum(x.passed for x in items() if (x.agent, x.model) == ("OpenHands", "gpt4.1"))
    assert f"{passed} passed of 7" in why[("openhands_agent-gpt4.1", "unit")]
    judge = next(f for f in footnotes if f["system"] == "openhands_agent-gpt4o")
    assert [c["column"] for c in judge["cells"]] == ["judge CC", "judge LC"]

    assert main([*args[:-2], "--compare-printed", str(printed)]) == 0
    text = capsys.readouterr().out
    notes = text.split("## Footnotes to Table 2", 1)[1].split("\n## ", 1)[0]
    assert "Printed openhands_agent-gpt4o (openhands_agent-gpt4o), judge CC/LC" in notes
    # Each differing cell of Table 2 carries its mark.
    line = next(x for x in text.splitlines() if x.startswith("| openhands_agent-gpt4o"))
    assert len(re.findall(r"\[[a-z]\]", line)) == 2


def test_without_a_printed_table_there_are_no_footnotes(
    published: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    results, benchmark, _ = published
    assert main(["report", str(results), "--benchmark", str(benchmark), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["footnotes"] == []


def test_the_parts_of_the_published_folder_given_one_by_one_give_the_same_table(
    published: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    results, _, _ = published
    assert main(["report", str(results), "--format", "json"]) == 0
    whole = json.loads(capsys.readouterr().out)["systems"]
    human = sorted((results / "human_evaluation").glob("*.json"))
    ones = [
        "report",
        "--published-results",
        str(results / "unit_test_evaluation"),
        "--published-judge",
        str(results / "llm_as_a_judge_evaluation"),
        "--human",
        str(human[0]),
        "--format",
        "json",
    ]
    assert main(ones) == 0  # ann1 only: fewer human labels
    part = json.loads(capsys.readouterr().out)["systems"]
    assert [(r["system"], r["unit_tests"], r["judge"]) for r in part] == [
        (r["system"], r["unit_tests"], r["judge"]) for r in whole
    ]
    assert all(r["human"]["total"] == 4 for r in part)
    # A 0..2 file named with --human (a 0 among its labels) is read with +1 beside a
    # 1..3 file, and the report says so; --shift 1 would shift both (the 1..3 file breaks).
    assert main([*ones, "--human", str(human[1])]) == 0
    mixed = json.loads(capsys.readouterr().out)
    assert any("0..2 scale" in note and str(human[1]) in note for note in mixed["notes"]), mixed
    # Both files, as in the whole folder (which reads the 0..2 file the same way).
    assert [r["human"] for r in mixed["systems"]] == [r["human"] for r in whole]
    assert main([*ones[:-2], "--human", str(human[1]), "--shift", "1", "--format", "json"]) == 2
