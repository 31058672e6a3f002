"""Recording tells the truth when importing the goal module fails (a Git LFS pointer
read by notebook-style top-level code), and guarding that code in the task's copy
lets the import, and so the recording, go through."""

from __future__ import annotations

import ast
import shutil
import textwrap
from pathlib import Path

import pytest

from lmr_author.authoring.fixtures import record_fixtures
from lmr_author.authoring.guard import apply_guards, guard_top_level, line_after_guard
from lmr_author.authoring.import_failure import GoalImportFailed
from tests.support.notebook_repo import DRIVER, notebook_repo

GOAL = "analysis/analysis_after_processing.py"


def test_import_failure_names_the_module_line_and_pointer(tmp_path: Path) -> None:
    repo = notebook_repo(tmp_path / "repo")
    with pytest.raises(GoalImportFailed) as caught:
        record_fixtures(repo, GOAL, "get_delta", DRIVER, out_dir=tmp_path / "out")
    text = str(caught.value)
    assert f"importing the goal module {GOAL} failed" in text
    assert f"at {GOAL}:" in text and "KeyError: 'intensity'" in text
    assert "Git LFS pointer file(s) instead of data: data/ratings.csv" in text
    assert "git lfs pull" in text and f'"guarded_files": ["{GOAL}"]' in text
    assert "Fix the driver" not in text
    assert caught.value.guard_file == GOAL


def test_guarded_copy_records_every_call(tmp_path: Path) -> None:
    repo = notebook_repo(tmp_path / "repo")
    copy = tmp_path / "copy"
    shutil.copytree(repo, copy)
    apply_guards([GOAL], copy)
    assert (repo / GOAL).read_text() != (copy / GOAL).read_text()  # the original untouched
    written = record_fixtures(copy, GOAL, "get_delta", DRIVER, out_dir=tmp_path / "out", limit=10)
    assert [p.name for p in written] == [f"get_delta_{n}.json" for n in range(1, 6)]


def test_guard_keeps_definitions_constants_and_setup() -> None:
    source = textwrap.dedent(
        """\
        import os
        import sys
        sys.path.append("..")
        LIMIT = 3
        TABLE = load_table("x.csv")  # read by a function: must stay
        unused = load_table("y.csv")
        derived = unused + 1

        def f():
            return TABLE[:LIMIT]

        for name in os.listdir("."):
            print(name)
        if __name__ == "__main__":
            main()
        """
    )
    guarded, count = guard_top_level(source)
    assert count == 3  # unused, derived (reads unused) and the loop
    tree = ast.parse(guarded)
    kept = [ast.unparse(node).splitlines()[0] for node in tree.body]
    assert kept[:5] == [
        "import os",
        "import sys",
        "sys.path.append('..')",
        "LIMIT = 3",
        "TABLE = load_table('x.csv')",
    ]
    guards = [n for n in tree.body if isinstance(n, ast.If)]
    assert [len(g.body) for g in guards] == [2, 1, 1]  # the last one was there already
    assert guard_top_level(guarded) == (guarded, 0)  # nothing left to guard


def test_lines_after_guard_follow_the_inserted_ifs() -> None:
    source = "a = f()\n\ndef g():\n    return 1\n\nb = f()\n\ndef h():\n    return 2\n"
    guarded, _ = guard_top_level(source)
    lines = guarded.splitlines()
    for name, line in (("g", 3), ("h", 8)):
        assert lines[line_after_guard(source, line) - 1] == f"def {name}():"


@pytest.mark.parametrize(("replays", "kept"), [(False, False), (True, True)])
def test_a_test_the_repository_had_at_the_tests_path(
    tmp_path: Path, replays: bool, kept: bool
) -> None:
    """A published repository folder brings its old unit_test/unit_test_1.py (reading
    LFS-pointer pickles): with a driver, the task's copy gets the replay test instead,
    and says so; a test that replays our fixtures is the annotator's and stays."""
    from lmr_author.authoring.build import build_task
    from lmr_author.authoring.spec import GoalSpec, TaskSpec
    from tests.support.git_repo import commit_files

    repo = notebook_repo(tmp_path / "repo")
    old = (
        "import pickle\n"
        "with open('unit_test_1/get_delta_input.pkl', 'rb') as f:\n"
        "    pickle.load(f)\n"
    )
    if replays:
        old = "import lmr_replay  # the annotator's own replay test\n"
    commit_files(repo, {"unit_test/unit_test_1.py": old}, "an earlier task's test")
    spec = TaskSpec(
        folder_name="40-Gap",
        source=str(repo),
        instance_id=40,
        year=2025,
        guarded_files=[GOAL],
        goals=[GoalSpec(GOAL, "get_delta", instruction="x", driver=DRIVER)],
    )
    steps: list[str] = []
    task = build_task(spec, tmp_path / "bench", on_step=steps.append)
    test = (task.repo_dir / "unit_test" / "unit_test_1.py").read_text()
    assert (test == old) is kept
    said = any("does not replay the recorded fixtures" in step for step in steps)
    assert said is not kept
    if not kept:
        assert "lmr_replay" in test


def test_a_missing_package_asks_for_the_package_not_a_guard(tmp_path: Path) -> None:
    from tests.support.git_repo import commit_files

    repo = tmp_path / "repo"
    commit_files(
        repo, {"mod.py": "import not_installed_anywhere\n\ndef f(x):\n    return x\n"}, "x"
    )
    with pytest.raises(GoalImportFailed) as caught:
        record_fixtures(repo, "mod.py", "f", "from mod import f\nf(1)\n", out_dir=tmp_path / "o")
    assert caught.value.guard_file is None
    assert "ModuleNotFoundError" in str(caught.value) and "requirements.txt" in str(caught.value)
    assert "guard" not in (caught.value.hint or "")
