"""missing-path and path-escape: every path of a task exists and stays inside it."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

MakeTask = Callable[..., Path]
REPO = "dpo-repo"


def impl0(data: dict) -> dict:
    return data["implementations"][0]


@pytest.mark.parametrize(
    ("deleted", "file", "where"),
    [
        ("Dockerfile", "Dockerfile", ""),
        ("golden_files/trainers_golden.py", "info.json", "$.implementations[0].golden_file"),
        (f"{REPO}/trainers.py", "info.json", "$.implementations[0].goal_file"),
        (f"{REPO}/unit_test/unit_test_1.py", "info.json", "$.implementations[0].unit_test_file"),
    ],
)
def test_missing_files(
    deleted: str, file: str, where: str, make_task: MakeTask, findings: Callable
) -> None:
    task = make_task()
    (task / deleted).unlink()
    found = findings(task, "missing-path")
    assert [(f.file, f.where, f.severity) for f in found] == [(file, where, "error")]


def test_missing_repository_folder_is_reported_once(
    make_task: MakeTask, findings: Callable
) -> None:
    def edit(data: dict) -> None:
        data["repo_folder_name"] = "no-such-repo"

    found = findings(make_task(info=edit), "missing-path")
    assert [f.where for f in found] == ["$.repo_folder_name"]


def test_missing_retrieval_path_is_a_warning(make_task: MakeTask, findings: Callable) -> None:
    def edit(data: dict) -> None:
        impl0(data)["retrieval_context"] = ["trainers.py", "utils/missing.py"]

    [found] = findings(make_task(info=edit), "missing-path")
    assert found.severity == "warning" and found.where.endswith("retrieval_context[1]")


def test_path_that_is_a_folder(make_task: MakeTask, findings: Callable) -> None:
    task = make_task()
    (task / REPO / "trainers.py").unlink()
    (task / REPO / "trainers.py").mkdir()
    [found] = findings(task, "missing-path")
    assert "is not a file" in found.message


def test_task_folder_without_info_json(tmp_path: Path, make_task: MakeTask) -> None:
    from lmr_author.validate.static import discover_tasks, validate_task

    make_task("01-Good")
    lost = make_task("02-Lost")
    (lost / "info.json").unlink()
    assert [p.name for p in discover_tasks([tmp_path])] == ["01-Good", "02-Lost"]
    found = validate_task(lost).findings
    assert [(f.rule, f.file) for f in found] == [("missing-path", "info.json")]


def test_present_paths_are_quiet(make_task: MakeTask, findings: Callable) -> None:
    assert findings(make_task(), "missing-path") == []


# -- path-escape ----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("key", "value", "reason"),
    [
        ("goal_file", "/etc/passwd", "absolute"),
        ("goal_file", "../golden_files/trainers_golden.py", "'..'"),
        ("golden_file", "../../outside.py", "'..'"),
        ("unit_test_file", "C:\\tests\\t.py", "absolute"),
    ],
)
def test_escaping_paths(
    key: str, value: str, reason: str, make_task: MakeTask, findings: Callable
) -> None:
    def edit(data: dict) -> None:
        impl0(data)[key] = value

    task = make_task(info=edit)
    [found] = findings(task, "path-escape")
    assert found.where == f"$.implementations[0].{key}" and reason in found.message
    # The escaping path is never opened, so no other rule reports on it.
    assert not [f for f in findings(task) if f.rule in {"syntax-error", "function-not-found"}]


def test_symlink_leaving_the_task(make_task: MakeTask, findings: Callable, tmp_path: Path) -> None:
    outside = tmp_path / "outside.bin"
    outside.write_bytes(b"data")
    task = make_task()
    os.symlink(outside, task / REPO / "unit_test" / "fixture.bin")
    [found] = findings(task, "path-escape")
    assert found.file == f"{REPO}/unit_test/fixture.bin"


def test_goal_file_through_symlink_leaving_the_task(
    make_task: MakeTask, findings: Callable, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "trainers.py").write_text("x = 1\n")
    task = make_task()
    os.symlink(elsewhere, task / REPO / "linked")

    def edit(data: dict) -> None:
        impl0(data)["goal_file"] = "linked/trainers.py"

    task = make_task(info=edit)
    found = findings(task, "path-escape")
    assert {f.where for f in found} >= {"$.implementations[0].goal_file"}


def test_symlink_inside_the_task_is_fine(make_task: MakeTask, findings: Callable) -> None:
    task = make_task()
    os.symlink("trainers.py", task / REPO / "alias.py")
    assert findings(task, "path-escape") == []
    assert findings(task, "missing-path") == []


def test_dangling_symlink_is_a_warning(make_task: MakeTask, findings: Callable) -> None:
    task = make_task()
    os.symlink("no-such-file.npy", task / REPO / "unit_test" / "data.npy")
    [found] = findings(task, "missing-path")
    assert found.severity == "warning" and found.file.endswith("data.npy")


def test_a_task_without_its_paper_says_so(make_task: MakeTask, findings: Callable) -> None:
    task = make_task()
    (task / REPO / "paper.pdf").unlink()
    (task / REPO / "paper.json").unlink(missing_ok=True)
    [found] = findings(task, "paper-missing")
    assert found.severity == "warning" and "left for later" in found.message
    assert "lmr-author paper" in (found.hint or "")
    assert findings(task, "missing-path") == []
