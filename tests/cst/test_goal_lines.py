"""``--line TASK[:IMPL]=N`` on generate, eval and collect: parsed, checked against the
task's masked goal file, and carried to every splice and extraction."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from lmr_author.cli import main
from lmr_author.cst.goal_lines import (
    LINE_HELP,
    corresponding_line,
    parse_goal_line,
    resolve_goal_lines,
)
from lmr_author.cst.index import list_functions
from lmr_author.domain.benchmark import load_benchmark
from lmr_author.eval_loop import Submission, run_evaluation
from lmr_author.generation.prompt import Setting
from lmr_author.generation.runner import splice_problem
from lmr_author.util.errors import UserError
from lmr_author.workspaces import collect_workspaces, load_manifest, prepare_workspaces
from tests.eval_loop.evaltasks import LocalBackend, make_benchmark

#: ``add`` is defined twice at the same level: a real ambiguity (lines 5 and 7).
MASKED = """\
import time
import typing

if typing.TYPE_CHECKING:
    def add(a: int, b: int) -> int: ...
else:
    def add(a, b):
        raise NotImplementedError


def mul(a, b):
    raise NotImplementedError
"""
ADD_LINE = 7
ANSWER = "def add(a, b):\n    return a + b\n"


@pytest.fixture
def bench(tmp_path: Path) -> Path:
    bench = make_benchmark(tmp_path, ("01-Add",))
    (bench / "01-Add" / "repo" / "calc.py").write_text(MASKED)
    (bench / "01-Add" / "repo" / "paper.pdf").write_bytes(b"%PDF-1.4 not really\n")
    return bench


def test_parse() -> None:
    spec = parse_goal_line("08-StepLength=88")
    assert (spec.task, spec.implementation, spec.line) == ("08-StepLength", None, 88)
    spec = parse_goal_line("16-KnowProb:2=40")
    assert (spec.task, spec.implementation, spec.line) == ("16-KnowProb", 2, 40)
    for bad in ("08-StepLength", "x=0", "x:0=3", "=4", "x=a"):
        with pytest.raises(argparse.ArgumentTypeError, match=r"is not TASK\[:IMPL\]=N"):
            parse_goal_line(bad)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("02-Nope=7", "task '02-Nope' is not among the tasks of this run"),
        ("01-Add=7", "task 01-Add has 2 implementations; say which one"),
        ("01-Add:3=7", "task 01-Add has no implementation 3"),
        ("01-Add:1=11", "no definition of the function `add` spans line 11"),
    ],
)
def test_each_line_is_checked_against_the_task(bench: Path, text: str, message: str) -> None:
    with pytest.raises(UserError, match=message) as caught:
        resolve_goal_lines([parse_goal_line(text)], load_benchmark(bench).tasks)
    assert f"--line {text}" in str(caught.value)


def test_one_line_per_implementation(bench: Path) -> None:
    specs = [parse_goal_line("01-Add:1=7"), parse_goal_line("01-Add:1=8")]
    with pytest.raises(UserError, match="a second --line for 01-Add implementation 1"):
        resolve_goal_lines(specs, load_benchmark(bench).tasks)
    lines = resolve_goal_lines([parse_goal_line("01-Add:1=8")], load_benchmark(bench).tasks)
    assert lines == {("01-Add", 1): 8}


def test_the_help_text_is_the_same_everywhere(capsys: pytest.CaptureFixture[str]) -> None:
    for command in ("generate", "eval", "collect"):
        assert main([command, "--help"]) == 0
        text = " ".join(capsys.readouterr().out.split())
        assert "--line TASK[:IMPL]=N" in text and " ".join(LINE_HELP.split()) in text


def test_a_bad_line_is_a_usage_error(bench: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", str(bench), "-s", str(bench), "--line", "01-Add"]) == 2
    assert "is not TASK[:IMPL]=N" in capsys.readouterr().err


def test_eval_splices_predictions_at_the_chosen_definition(bench: Path, tmp_path: Path) -> None:
    preds = tmp_path / "preds.jsonl"
    preds.write_text(
        json.dumps({"task": "01-Add", "implementation": 1, "system": "s", "source": ANSWER}) + "\n"
    )
    ambiguous = run_evaluation(bench, [Submission(preds)], tmp_path / "a", backend=LocalBackend())
    [run] = [r for r in ambiguous.runs if r.implementation == 1]
    assert run.verdict == "error" and "--line" in run.reason
    assert "`add` at line 5, `add` at line 7" in run.reason

    chosen = Submission(preds, goal_lines=(parse_goal_line(f"01-Add:1={ADD_LINE}"),))
    results = run_evaluation(bench, [chosen], tmp_path / "b", backend=LocalBackend())
    [run] = [r for r in results.runs if r.implementation == 1]
    assert run.verdict == "pass"
    spliced = (tmp_path / "b" / "runs" / "s" / "01-Add" / "1" / "candidate.py").read_text()
    assert spliced == MASKED.replace(
        "        raise NotImplementedError\n", "        return a + b\n", 1
    )


def test_generate_checks_the_splice_at_the_chosen_definition(bench: Path) -> None:
    [task] = load_benchmark(bench).tasks
    impl = task.implementations[0]
    assert "--line" in splice_problem(task, impl, ANSWER)
    assert splice_problem(task, impl, ANSWER, line=ADD_LINE) == ""


def test_collect_takes_the_chosen_definition_from_a_workspace(bench: Path, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    prepare_workspaces(load_benchmark(bench).tasks, Setting.FULL, ws, benchmark=bench)
    manifest = load_manifest(ws)
    entry = next(e for e in manifest.workspaces if e.implementation == 1)
    goal = ws / entry.path / "repo" / "calc.py"
    # The agent added lines above, so the definition is no longer at line 7 there.
    solved = MASKED.replace("raise NotImplementedError", "return a + b", 1)
    goal.write_text("# notes\n# more notes\n" + solved)
    tasks = load_benchmark(bench).tasks
    report = collect_workspaces(ws, manifest, tasks, "agent", tmp_path / "plain")
    assert not report.items[0].collected and "--line" in report.items[0].reason
    lines = resolve_goal_lines([parse_goal_line(f"01-Add:1={ADD_LINE}")], tasks)
    report = collect_workspaces(ws, manifest, tasks, "agent", tmp_path / "sub", lines)
    assert report.items[0].collected
    assert (tmp_path / "sub" / "01-Add" / "repo" / "calc.py").read_text() == solved


def test_corresponding_line_follows_the_definition_across_versions() -> None:
    edited = "# a comment\n\n" + MASKED
    there = corresponding_line(list_functions(MASKED), list_functions(edited), "add", "", 8)
    assert there == ADD_LINE + 2
    assert (
        corresponding_line(
            list_functions(MASKED), list_functions("def add(a, b):\n    pass\n"), "add", "", 8
        )
        is None
    )


def test_functions_marks_variants_under_if_or_try(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "calc.py"
    path.write_text(MASKED)
    assert main(["functions", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("calc.py:5-5 add [in if/try/with]")
    assert out[1].startswith("calc.py:7-8 add [in if/try/with]")
    assert out[2].startswith("calc.py:11-12 mul (") and "[in" not in out[2]
