"""`lmr-author validate`: exit codes, the report, --json, --fix, --schema-only, --strict."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from lmr_author.cli import main

MakeTask = Callable[..., Path]


def impl0(data: dict) -> dict:
    return data["implementations"][0]


def warn_only(data: dict) -> None:
    impl0(data)["retrieval_content"] = impl0(data).pop("retrieval_context")


def broken(data: dict) -> None:
    impl0(data)["goal_function"] = "no_such_function"


@pytest.fixture
def bench_dir(make_task: MakeTask, tmp_path: Path) -> Path:
    root = tmp_path / "bench"
    root.mkdir()
    make_task("01-Good", parent=root)
    make_task("02-Warn", parent=root, info=warn_only)
    make_task("03-Bad", parent=root, info=broken)
    (root / "submissions").mkdir()
    (root / "notes").mkdir()
    return root


def test_clean_task_exits_0(make_task: MakeTask, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(make_task())]) == 0
    out = capsys.readouterr().out
    assert "01-DPO  ok" in out and "1 task checked" in out


def test_report_groups_by_task(bench_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(bench_dir)]) == 1
    out = capsys.readouterr().out
    assert out.index("01-Good") < out.index("02-Warn") < out.index("03-Bad")
    assert "function-not-found" in out and "alias-key" in out
    assert out.strip().splitlines()[-1].startswith("3 tasks checked: 1 with errors;")
    assert "\x1b[" not in out  # no colour codes when not a terminal


def test_json_output_shape(bench_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "--json", str(bench_dir)]) == 1
    document = json.loads(capsys.readouterr().out)
    assert set(document) == {"tasks", "summary"}
    assert [t["task"] for t in document["tasks"]] == ["01-Good", "02-Warn", "03-Bad"]
    for task in document["tasks"]:
        assert set(task) == {"task", "findings"}
        for finding in task["findings"]:
            assert set(finding) == {"rule", "severity", "message", "file", "where", "hint"}
    summary = document["summary"]
    assert summary["tasks"] == 3 and summary["tasks_with_errors"] == 1
    assert summary["by_rule"]["alias-key"] == 1


def test_warnings_exit_0_unless_strict(make_task: MakeTask) -> None:
    task = make_task(info=warn_only)
    assert main(["validate", str(task)]) == 0
    assert main(["validate", "--strict", str(task)]) == 1


def test_fix_prints_and_repairs(make_task: MakeTask, capsys: pytest.CaptureFixture[str]) -> None:
    task = make_task(info=warn_only)
    assert main(["validate", "--fix", "--strict", str(task)]) == 0
    out = capsys.readouterr().out
    assert "fixed 01-DPO/info.json: renamed 'retrieval_content' to 'retrieval_context'" in out


def test_fix_with_json_lists_the_changes(
    make_task: MakeTask, capsys: pytest.CaptureFixture[str]
) -> None:
    task = make_task(info=warn_only)
    main(["validate", "--fix", "--json", str(task)])
    document = json.loads(capsys.readouterr().out)
    assert [c["rule"] for c in document["fixes"]] == ["alias-key"]


def test_schema_only_reads_only_info_json(
    make_task: MakeTask, capsys: pytest.CaptureFixture[str]
) -> None:
    task = make_task(info=broken)
    (task / "Dockerfile").unlink()
    assert main(["validate", "--schema-only", str(task)]) == 0
    assert main(["validate", "--schema-only", str(make_task("02-X", raw_info="{"))]) == 1


def test_ignore_and_select(make_task: MakeTask, capsys: pytest.CaptureFixture[str]) -> None:
    task = make_task(info=broken)
    assert main(["validate", "--ignore", "function-not-found", str(task)]) == 0
    assert main(["validate", "--select", "alias-key,schema", str(task)]) == 0
    assert main(["validate", "--select", "no-such-rule", str(task)]) == 2
    assert "unknown rule id: no-such-rule" in capsys.readouterr().err


def test_list_rules(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "--list-rules", "--json"]) == 0
    rules = json.loads(capsys.readouterr().out)
    ids = [r["rule"] for r in rules]
    for required in (
        "json-syntax",
        "schema",
        "alias-key",
        "unknown-category",
        "folder-name",
        "duplicate-index",
        "missing-path",
        "path-escape",
        "function-not-found",
        "syntax-error",
        "not-masked",
        "outside-diff",
        "lfs-pointer",
        "test-never-fails",
        "test-missing-target",
        "dockerfile",
    ):
        assert required in ids
    assert all(r["severity"] in {"error", "warning"} for r in rules)


@pytest.mark.parametrize(
    "argv",
    [
        ["validate"],
        ["validate", "/no/such/folder"],
        ["validate", "--timeout", "0", "."],
    ],
)
def test_usage_errors_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.splitlines()[-1].startswith("lmr-author") and "Traceback" not in err


def test_folder_without_tasks_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "empty").mkdir()
    assert main(["validate", str(tmp_path / "empty")]) == 2
    assert "no task folders" in capsys.readouterr().err


def test_info_json_path_is_accepted(make_task: MakeTask) -> None:
    assert main(["validate", str(make_task() / "info.json")]) == 0
