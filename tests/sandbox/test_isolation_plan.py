"""What an isolated run keeps from the candidate, from the task's files and the proof."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from lmr_author.sandbox import isolation
from tests.support.sandbox_tasks import write_task


def test_the_tests_folders_test_files_and_what_only_the_tests_read_are_private(
    tmp_path: Path,
) -> None:
    task = write_task(tmp_path)
    repo = task.path / task.repo_folder_name
    (repo / "unit_test_2").mkdir()
    (repo / "test_extra.py").write_text("")
    (repo / "data").mkdir()
    impl = task.implementations[0]
    plan = isolation.plan(
        task,
        impl,
        "/w/repo",
        test_reads=(
            "data/expected.json",
            "__pycache__/reference.cpython-311.pyc",
            "calc.py",  # the goal file itself is never private
        ),
    )
    assert set(plan.hidden_folders) == {
        "/w/repo/unit_test",
        "/w/repo/unit_test_2",
        "/w/repo/__pycache__",  # the bytecode of a private module
    }
    assert set(plan.emptied_files) == {
        "/w/repo/test_extra.py",
        "/w/repo/data/expected.json",
        "/w/repo/reference.py",  # the source of the bytecode the test read
    }
    assert set(plan.private) == {*plan.hidden_folders, *plan.emptied_files}
    options = plan.harness_options()
    assert options["private"] == list(plan.private) and options["fork"] is True
    assert plan.goal_path == "/w/repo/calc.py" and plan.source_path == isolation.CANDIDATE_SOURCE


def test_a_goal_in_a_test_file_never_runs_isolated(tmp_path: Path) -> None:
    task = write_task(tmp_path)
    impl = task.implementations[0]
    assert isolation.not_isolatable(task, impl) is None
    impl.goal_file = "unit_test/unit_test_1.py"
    assert "unit test file" in (isolation.not_isolatable(task, impl) or "")


def test_apart_the_candidate_gets_its_own_command_and_socket_path(tmp_path: Path) -> None:
    task = write_task(tmp_path)
    plan = isolation.plan(
        task, task.implementations[0], "/w/repo", fork=False, socket="/lmr-chan/socket"
    )
    options = plan.harness_options()
    assert options["fork"] is False and "candidate" not in options
    command = plan.candidate_command()
    assert command[:2] == ["python", "-I"] and command[2].endswith("candidate.py")
    assert '"socket": "/lmr-chan/socket"' in command[3]


def test_what_other_implementations_tests_name_is_private_and_out_of_sight(
    tmp_path: Path,
) -> None:
    """07-bertscore's shape: a test reads its cases from tensors/ beside the code; in the
    runs of another implementation that folder is the tests' too, names and all."""
    task = write_task(tmp_path)
    repo = task.path / task.repo_folder_name
    first = task.implementations[0]
    second = dataclasses.replace(first, index=2, unit_test_file="unit_test/unit_test_2.py")
    second.repo_dir, second.task_dir = first.repo_dir, first.task_dir
    (repo / second.unit_test_file).write_text((repo / first.unit_test_file).read_text())
    task.implementations.append(second)
    (repo / "tensors").mkdir()
    (repo / "tensors" / "greedy_cases.pkl").write_bytes(b"expected")
    (repo / "shared").mkdir()
    (repo / "shared" / "vocab.json").write_text("{}")
    (repo / "shared" / "readme.txt").write_text("not named by a test")
    second_test = repo / second.unit_test_file
    second_test.write_text(
        second_test.read_text()
        + "\nCASES = 'tensors/greedy_cases.pkl'\nVOCAB = 'shared/vocab.json'\n"
    )
    first_test = repo / first.unit_test_file
    first_test.write_text(first_test.read_text() + "\nVOCAB = 'vocab.json'\n")

    plan = isolation.plan(task, first, "/w/repo")
    assert "/w/repo/tensors" in plan.hidden_folders  # only the tests' files: names hidden
    assert "/w/repo/shared/vocab.json" not in plan.private  # this run's test names it too
    assert "/w/repo/shared" not in plan.hidden_folders
    # The implementation whose test names them decides from its own golden proof.
    plan = isolation.plan(task, second, "/w/repo")
    assert "/w/repo/tensors" not in plan.hidden_folders


def test_what_only_the_test_read_leaves_out_the_goal_module_and_the_private(
    tmp_path: Path,
) -> None:
    task = write_task(tmp_path)
    plan = isolation.plan(task, task.implementations[0], "/w/repo")
    read = [
        "calc.py",  # the proxy's masked copy of the goal module
        "__pycache__/calc.cpython-311.pyc",
        "unit_test/unit_test_1.py",  # private already
        "data/expected.json",
        "helpers.py",
        "__pycache__/helpers.cpython-311.pyc",
        "vocab.txt",
    ]
    kept = isolation.test_only_reads(plan, read, candidate_read=["vocab.txt"])
    assert kept == (
        "__pycache__/helpers.cpython-311.pyc",
        "data/expected.json",
        "helpers.py",
    )


def test_an_extra_test_anywhere_is_the_tests_not_the_candidates(tmp_path: Path) -> None:
    """info.json's extra_unit_tests (strengthen's replay test) are held private as the
    published test is: their folder hidden from the candidate's process."""
    import json

    from lmr_author.domain.task import load_task
    from tests.support.loose_tasks import write_loose_task

    task_dir = write_loose_task(tmp_path, goals=(3,))
    (task_dir / "loosenet" / "checks").mkdir()
    (task_dir / "loosenet" / "checks" / "replay.py").write_text("")
    info = json.loads((task_dir / "info.json").read_text())
    info["implementations"][0]["extra_unit_tests"] = ["checks/replay.py"]
    (task_dir / "info.json").write_text(json.dumps(info))
    task = load_task(task_dir)
    plan = isolation.plan(task, task.implementations[0], "/w/repo")
    assert "/w/repo/checks" in plan.hidden_folders
