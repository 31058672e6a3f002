"""`report` shows the mutation scores the benchmark's tasks store, current or stale."""

from __future__ import annotations

from pathlib import Path

from lmr_author.commands._render_report import to_markdown
from lmr_author.mutation.score import MutationReport
from lmr_author.mutation.stored import store_scores
from lmr_author.reporting.strength import stored_strength
from lmr_author.reporting.tables import Report
from tests.support.loose_tasks import write_loose_task


def test_stored_scores_are_rows_and_a_changed_task_is_stale(tmp_path: Path) -> None:
    task_dir = write_loose_task(tmp_path, goals=(1, 3))
    store_scores(task_dir, [MutationReport("t", 3, total=10, killed=9)])
    rows, notes = stored_strength(tmp_path)
    [row] = rows
    assert (row.implementation, row.killed, row.counted, row.current, row.tests) == (
        3,
        9,
        10,
        True,
        1,
    )
    assert notes == [
        "1 implementation(s) store no mutation score: 'lmr-author strengthen --measure-only "
        "TASK' measures and stores one"
    ]
    report = Report([], {}, benchmark=str(tmp_path))
    report.strength = rows
    text = to_markdown(report)
    assert "Test strength (mutation scores stored with the tasks)" in text
    assert "| 90% | 9/10 |" in text and "on this content" in text
    assert report.to_json()["test_strength"][0]["score"] == 0.9

    (task_dir / "loosenet" / "metric.py").write_text("# changed\n")
    [row] = stored_strength(tmp_path)[0]
    assert not row.current
    report.strength = [row]
    assert "stale (the task changed)" in to_markdown(report)


def test_a_benchmark_without_stored_scores_has_no_section(tmp_path: Path) -> None:
    write_loose_task(tmp_path, goals=(3,))
    assert stored_strength(tmp_path) == ([], [])
    assert "Test strength" not in to_markdown(Report([], {}, benchmark=str(tmp_path)))
