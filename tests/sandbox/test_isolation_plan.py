"""What an isolated run keeps from the candidate, from the task's files and the proof."""

from __future__ import annotations

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
