"""Table 2 of `report` marks rows whose n is far below the others (`domain.thin_rows`)."""

from __future__ import annotations

from lmr_author.commands._render_report import sections, thin_lines, to_markdown
from lmr_author.domain.scoring import LabelCounts, SystemScore, Tally
from lmr_author.domain.thin_rows import MARK
from lmr_author.reporting.tables import Report


def row(system: str, runs: int, judged: int, labels: int, published: bool = False) -> SystemScore:
    found = SystemScore(system, origin="out", published=published)
    found.unit_tests = Tally(runs, runs // 2)
    found.judge = LabelCounts({"CC": judged, "LC": 0, "LI": 0})
    found.human = LabelCounts({"CC": 0, "LC": labels, "LI": 0})
    return found


def report() -> Report:
    return Report(
        [
            row("base", 24, 24, 24),
            row("agent", 24, 22, 1),  # one human label: thin on the human side only
            row("gpt4o", 24, 1, 20),  # the published case: the judge read one answer
            row("paper", 20, 0, 0, published=True),  # no labels: nothing to flag
        ],
        {},
    )


def test_thin_counts_per_column() -> None:
    found = report()
    assert found.thin() == {"unit_tests": {}, "judge": {2: 22.0}, "human": {1: 20.0}}
    systems = {x["system"]: x for x in found.to_json()["systems"]}
    assert systems["gpt4o"]["judge"]["thin"] is True
    assert systems["gpt4o"]["human"]["thin"] is False
    assert systems["agent"]["human"]["thin"] is True
    assert not any(x["unit_tests"]["thin"] for x in systems.values())
    assert systems["paper"]["judge"]["thin"] is False


def test_table_2_marks_and_lists_them_first() -> None:
    found = report()
    assert thin_lines(found) == [
        "judged runs: gpt4o (n=1, median 22)",
        "human labels: agent (n=1, median 20)",
    ]
    table2 = sections(found)[0]
    cells = {r[0]: r for r in table2.rows}
    judged, labels = table2.header.index("judged"), table2.header.index("labels")
    assert cells["gpt4o"][judged] == f"1 {MARK}" and cells["gpt4o"][labels] == "20"
    assert cells["agent"][labels] == f"1 {MARK}" and cells["base"][judged] == "24"
    assert "Rows marked ⚠ rest on few items" in table2.note and "agent, gpt4o" in table2.note
    markdown = to_markdown(found)
    assert markdown.index("**Thin rows**") < markdown.index("## Table 2")
    assert "- judged runs: gpt4o (n=1, median 22)" in markdown
