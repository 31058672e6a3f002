"""One broken task never blocks a benchmark: every command lists them all and goes on.

The benchmark is written in the published shape (``tests/support/published_task.py``)
with one good task, one with a published info.json variant that loads (a string
``instance_id``), and one of each way a published task was found broken.
"""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pymupdf
import pytest

from lmr_author.cli import main
from lmr_author.domain.benchmark import load_benchmark
from lmr_author.util.errors import UserError
from tests.support.published_task import REPO, write_published_task

GOOD = ("01-Good", "05-StringId", "08-TestNamedWrong")
BROKEN = {
    "02-NoGoalFunction": "goal_function",
    "03-NoGoalFile": "the goal file",
    "04-NoRepository": "the repository folder",
    "06-BadJson": "invalid JSON",
    "07-NoGoldenFile": "the golden file",
}


def _variant(root: Path, name: str, edit: Callable[[Path, dict[str, Any]], None]) -> None:
    task_dir = write_published_task(root, name)
    info = json.loads((task_dir / "info.json").read_text())
    edit(task_dir, info)
    (task_dir / "info.json").write_text(json.dumps(info))


def _paper(task_dir: Path) -> None:
    document = pymupdf.open()
    document.new_page().insert_text((72, 72), "Weighted scoring, page one.")
    document.save(task_dir / REPO / "paper.pdf")
    (task_dir / REPO / "paper.json").write_text(json.dumps({"1": "Weighted scoring."}))


@pytest.fixture
def bench(tmp_path: Path) -> Path:
    root = tmp_path / "bench"
    root.mkdir()
    _paper(write_published_task(root, "01-Good"))
    _variant(
        root, "02-NoGoalFunction", lambda d, i: i["implementations"][0].update(goal_function=None)
    )
    _variant(root, "03-NoGoalFile", lambda d, i: (d / REPO / "metrics.py").unlink())
    _variant(root, "04-NoRepository", lambda d, i: shutil.rmtree(d / REPO))
    _variant(root, "05-StringId", lambda d, i: (i.update(instance_id="29"), _paper(d)))
    (write_published_task(root, "06-BadJson") / "info.json").write_text("{not json")
    _variant(
        root,
        "07-NoGoldenFile",
        lambda d, i: (d / "golden_files" / "metrics_golden.py").unlink(),
    )
    # info.json names unit_test.py; the test is unit_test_1.py (published 13-DecBound).
    _variant(
        root,
        "08-TestNamedWrong",
        lambda d, i: (
            i["implementations"][0].update(unit_test_file="unit_test/unit_test.py"),
            _paper(d),
        ),
    )
    return root


def test_a_misnamed_test_file_is_read_as_the_published_loop_reads_it(bench: Path) -> None:
    loaded = load_benchmark(bench, ["08-TestNamedWrong"])
    [task] = loaded.tasks
    assert task.implementations[0].unit_test_file == "unit_test/unit_test_1.py"
    assert len(loaded.notes) == 1 and "unit_test/unit_test.py" in loaded.notes[0]


def test_broken_tasks_are_listed_all_at_once_with_their_reasons(bench: Path) -> None:
    loaded = load_benchmark(bench)
    assert [task.name for task in loaded.tasks] == list(GOOD)
    assert {item.name: item.reason for item in loaded.broken}.keys() == BROKEN.keys()
    for item in loaded.broken:
        assert BROKEN[item.name] in item.reason, item


@pytest.fixture
def opened() -> Iterator[list[str]]:
    """Every path opened while the test runs (a Python audit hook; hooks cannot be
    removed, so it records only while this fixture is active)."""
    paths: list[str] = []
    active = [True]

    def hook(event: str, args: tuple[Any, ...]) -> None:
        if active[0] and event == "open" and isinstance(args[0], str | Path):
            paths.append(str(args[0]))

    sys.addaudithook(hook)
    yield paths
    active[0] = False


def test_task_opens_no_other_tasks_files(bench: Path, opened: list[str]) -> None:
    load_benchmark(bench, ["01-Good"])
    touched = {Path(path).relative_to(bench).parts[0] for path in opened if str(bench) in path}
    assert touched == {"01-Good"}


def test_task_narrows_before_loading(bench: Path) -> None:
    # 06-BadJson's info.json is not JSON: reading it would make it broken.
    loaded = load_benchmark(bench, ["01-Good"])
    assert [task.name for task in loaded.tasks] == ["01-Good"]
    assert loaded.broken == []
    with pytest.raises(UserError, match="no such task: 99-Nope") as raised:
        load_benchmark(bench, ["99-Nope"])
    assert "01-Good" in str(raised.value)


def test_a_benchmark_of_broken_tasks_is_an_error_naming_them(bench: Path) -> None:
    with pytest.raises(UserError, match="no task here can be loaded") as raised:
        load_benchmark(bench, ["03-NoGoalFile", "04-NoRepository"])
    assert "03-NoGoalFile" in str(raised.value) and "04-NoRepository" in str(raised.value)


def _skipped_block(err: str) -> list[str]:
    lines = err.splitlines()
    assert lines[0] == f"skipped {len(BROKEN)} task(s) that cannot be loaded:", err
    return [line.split(":")[0].strip() for line in lines[1 : 1 + len(BROKEN)]]


def test_generate_lists_broken_tasks_first_and_plans_the_rest(
    bench: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["generate", str(bench), "--model", "m", "--dry-run", "--json"]
    code = main([*argv, "-o", str(tmp_path / "p.jsonl")])
    captured = capsys.readouterr()
    assert code == 1  # some tasks were skipped
    assert _skipped_block(captured.err) == list(BROKEN)
    plan = json.loads(captured.out)
    assert {item["item"].split("#")[0] for item in plan["items"]} == set(GOOD)

    code = main([*argv, "-o", str(tmp_path / "q.jsonl"), "--task", "01-Good"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "skipped" not in captured.err
    assert {item["item"] for item in json.loads(captured.out)["items"]} == {"01-Good#1"}


def test_prepare_lists_broken_tasks_first_and_prepares_the_rest(
    bench: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # No paper at all (no PDF, and no paper.json to write one from): not prepared.
    (bench / "05-StringId" / REPO / "paper.pdf").unlink()
    (bench / "05-StringId" / REPO / "paper.json").unlink(missing_ok=True)
    code = main(["prepare", str(bench), "-o", str(tmp_path / "ws"), "--json"])
    captured = capsys.readouterr()
    assert code == 1
    assert _skipped_block(captured.err) == list(BROKEN)
    assert "not prepared: 05-StringId#1" in captured.err
    manifest = json.loads(captured.out)
    assert [entry["task"] for entry in manifest["workspaces"]] == ["01-Good", "08-TestNamedWrong"]
    assert not (tmp_path / "ws" / "05-StringId").exists()


def test_paper_command_writes_paper_json_in_the_published_shape(
    bench: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    task = bench / "01-Good"
    (task / REPO / "paper.json").unlink()
    assert main(["paper", str(task / REPO)]) == 0
    pages = json.loads((task / REPO / "paper.json").read_text())
    assert list(pages) == ["1"] and "Weighted scoring, page one." in pages["1"]
    assert main(["paper", str(task / REPO)]) == 2  # exists: refused without --force
    assert "--force" in capsys.readouterr().err


def _skipped_json(data: dict[str, Any]) -> dict[str, str]:
    return {item["task"]: item["reason"] for item in data["skipped_tasks"]}


def test_generate_and_prepare_json_carry_the_skipped_tasks(
    bench: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["generate", str(bench), "--model", "m", "--dry-run", "--json"]
    assert main([*argv, "-o", str(tmp_path / "p.jsonl")]) == 1
    skipped = _skipped_json(json.loads(capsys.readouterr().out))
    assert skipped.keys() == BROKEN.keys()
    assert all(BROKEN[name] in reason for name, reason in skipped.items())
    assert main(["prepare", str(bench), "-o", str(tmp_path / "ws"), "--json"]) == 1
    assert _skipped_json(json.loads(capsys.readouterr().out)).keys() == BROKEN.keys()
    argv = ["prepare", str(bench), "-o", str(tmp_path / "w2"), "--json", "--task", "01-Good"]
    assert main(argv) == 0
    assert "skipped_tasks" not in json.loads(capsys.readouterr().out)


def _eval_output(root: Path, bench: Path) -> Path:
    from tests.support.eval_output import RunSpec, write_run

    out = root / "out"
    out.mkdir()
    results = {"schema_version": 1, "benchmark": str(bench), "systems": {}, "runs": []}
    (out / "results.json").write_text(json.dumps(results))
    for system, verdict in (("sys-a", "pass"), ("sys-b", "fail")):
        for task in GOOD:
            write_run(out, RunSpec(system, task, 1, verdict))
    return out


#: What report reads needs only info.json: these two cannot be read at all.
UNREADABLE = ("02-NoGoalFunction", "06-BadJson")


def test_report_lists_broken_tasks_first_and_reports_the_rest(
    bench: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = _eval_output(tmp_path, bench)
    assert main(["report", str(out), "--benchmark", str(bench), "--no-human"]) == 1
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert lines[0] == f"skipped {len(UNREADABLE)} task(s) that cannot be loaded:", lines
    assert [line.split(":")[0].strip() for line in lines[1:3]] == list(UNREADABLE)
    assert "Table 2" in captured.out

    argv = ["report", str(out), "--benchmark", str(bench), "--no-human", "--format", "json"]
    assert main(argv) == 1
    data = json.loads(capsys.readouterr().out)
    assert _skipped_json(data).keys() == set(UNREADABLE)
    # the category distribution counts every task that loads, the unrunnable ones too
    assert sum(data["category_distribution"].values()) == len(GOOD) + 3


def test_report_regression_leaves_unrunnable_tasks_out_and_fits_on_the_rest(
    bench: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from lmr_author.reporting.success import success_table

    out = _eval_output(tmp_path, bench)
    table = success_table([out], bench)
    assert {row.item for row in table.rows} == {f"{task}#1" for task in GOOD}
    notes = [item.line() for item in table.left_out]
    left_out = [note.split()[1] for note in notes if "left out (it cannot be loaded)" in note]
    assert left_out == list(BROKEN)

    # the command lists them first, whatever the fit makes of so few rows
    main(["report", str(out), "--benchmark", str(bench), "--no-human", "--regression"])
    assert _skipped_block(capsys.readouterr().err) == list(BROKEN)


def test_eval_lists_broken_tasks_first_and_records_them(
    bench: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.support.published_task import write_submission

    # A submission for a broken task only: nothing to run, the rest is still reported.
    submission = write_submission(tmp_path / "subs", "sys-a", bench / "03-NoGoalFile", "x = 1\n")
    argv = ["eval", str(bench), "--submission", str(submission), "--json"]
    code = main([*argv, "--output", str(tmp_path / "ev")])
    captured = capsys.readouterr()
    assert code == 1, captured.err
    assert _skipped_block(captured.err) == list(BROKEN)
    assert _skipped_json(json.loads(captured.out)).keys() == BROKEN.keys()
