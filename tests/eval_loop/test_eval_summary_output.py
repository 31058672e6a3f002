"""What eval prints: missing predictions first, headers never cut, one rounding rule."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console
from syrupy.assertion import SnapshotAssertion

from lmr_author.commands._numbers import percent, percent_value
from lmr_author.commands._render_results import print_summary
from lmr_author.eval_loop import VERDICTS, Submission, run_evaluation
from lmr_author.eval_output.results import build_results
from tests.eval_loop.evaltasks import (
    CORRECT,
    LocalBackend,
    make_benchmark,
    make_folder_submission,
)
from tests.support.eval_output import RunSpec, build_eval_output


def _summary_text(tmp_path: Path, width: int) -> str:
    bench = make_benchmark(tmp_path)
    root = tmp_path / "subs"
    # 02-Calc left out: its 2 implementations have no candidate in the submission.
    only_add = make_folder_submission(root, "a-rather-long-system-name", {"01-Add": CORRECT})
    out = tmp_path / "out"
    results = run_evaluation(bench, [Submission(only_add)], out, backend=LocalBackend())
    buffer = io.StringIO()
    print_summary(results, out, Console(file=buffer, width=width, color_system=None))
    return buffer.getvalue()


def test_missing_predictions_are_said_first(tmp_path: Path) -> None:
    text = _summary_text(tmp_path, 80)
    first = text.splitlines()[0]
    assert first.startswith("a-rather-long-system-name: 2 of ")
    assert "had no prediction in the submission" in first


def test_piped_tables_never_cut_a_header(tmp_path: Path) -> None:
    # 80 columns: what rich gives a pipe; no header is cut.
    text = _summary_text(tmp_path, 80)
    assert "…" not in text
    for header in ("accuracy", "passed", *VERDICTS):
        assert header in text


@pytest.mark.parametrize(
    ("fraction", "shown"),
    [(0.8125, "81.3%"), (0.1875, "18.8%"), (0.125, "12.5%"), (1 / 3, "33.3%"), (None, "-")],
)
def test_percentages_round_half_up(fraction: float | None, shown: str) -> None:
    assert percent(fraction) == shown


def test_values_in_percent_round_half_up() -> None:
    assert percent_value(81.25) == "81.3" and percent_value(18.75) == "18.8"
    assert percent_value(2.5, digits=0) == "3" and percent_value(None) == "-"


#: The sample benchmark's systems, and a name as long as a published one.
SAMPLE = {
    "correct": ["pass"] * 8,
    "subtle-bug": ["pass"] * 5 + ["fail"] * 3,
    "wrong-logic": ["fail"] * 6 + ["error", "pass"],
    "openhands_agent-claude-3-7-sonnet-20250219-thinking": ["pass", "timeout", "infra-error"],
}


@pytest.mark.parametrize("width", [80, 200])
def test_the_summary_fits_and_never_splits_a_name(
    tmp_path: Path, width: int, snapshot: SnapshotAssertion
) -> None:
    specs = [
        RunSpec(system, implementation=i, verdict=verdict, reason="the engine went away")
        for system, verdicts in SAMPLE.items()
        for i, verdict in enumerate(verdicts, start=1)
    ]
    output = build_eval_output(tmp_path, specs)
    console = Console(width=width, file=io.StringIO(), color_system=None, record=True)
    print_summary(build_results(output), Path("out"), console)
    text = console.export_text()
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= width
    for name in SAMPLE:
        # its row in both tables, whole
        assert sum(line == name or line.startswith(f"{name} ") for line in lines) == 2
    assert text == snapshot


def test_implementations_run_in_the_tests_process_are_said_with_why(tmp_path: Path) -> None:
    """Issue 39: a kept downgrade is shown in the summary, once per implementation, with
    the golden proof's why; isolated runs and infra-errors are not listed there."""
    from lmr_author.eval_output.records import RunRecord
    from lmr_author.eval_output.results import Results, summarize

    def record(system: str, task: str, isolated: bool | None, verdict: str) -> RunRecord:
        why = "" if isolated else "answer: add: the return value holds a generator"
        return RunRecord(
            *("k", system, task, 1, None, "calc.py", "add", "", None, "sha256:x", verdict),
            isolated=isolated,
            not_isolated_why=why,
        )

    runs = [
        record("a", "01-Gen", False, "pass"),
        record("b", "01-Gen", False, "fail"),
        record("a", "02-Add", True, "pass"),
        record("a", "03-Slow", None, "infra-error"),
    ]
    buffer = io.StringIO()
    results = Results("bench", summarize(runs), runs)
    print_summary(results, tmp_path, Console(file=buffer, width=200, color_system=None))
    text = buffer.getvalue()
    assert "1 implementation(s) ran their candidates in the test's process" in text
    assert "  01-Gen#1: answer: add: the return value holds a generator" in text
    assert "02-Add#1" not in text.split("test's process")[-1]
