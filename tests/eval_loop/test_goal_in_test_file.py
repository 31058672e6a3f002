"""Goal functions that live in the unit test file (published 03-DoLa, 06-RepE, 20-CAD).

A submission may hand in the whole test file; only its goal function is taken, spliced
into the task's masked test file, so the tests themselves cannot be rewritten.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lmr_author.domain.benchmark import load_benchmark
from lmr_author.domain.task import goal_is_test_file
from lmr_author.eval_loop import Submission, load_candidates, run_evaluation
from tests.eval_loop.evaltasks import DOCKERFILE, LocalBackend

MASKED_TEST = '''\
import unittest


def double_agent(x):
    """Return twice x."""
    # TODO: Implement this function
    pass


class TestDouble(unittest.TestCase):
    def test_double(self):
        self.assertEqual(double_agent(21), 42)


if __name__ == "__main__":
    unittest.main()
'''
GOAL = 'def double_agent(x):\n    """Return twice x."""\n    return 2 * x\n'
GOLDEN_TEST = MASKED_TEST.replace(
    'def double_agent(x):\n    """Return twice x."""\n    # TODO: Implement this function\n'
    "    pass\n",
    GOAL,
)
TASK = "03-Dbl"
TEST_FILE = "unit_test/unit_test_1.py"


def _task(bench: Path) -> Path:
    task = bench / TASK
    (task / "repo" / "unit_test").mkdir(parents=True)
    (task / "golden_files").mkdir()
    (task / "Dockerfile").write_text(DOCKERFILE)
    (task / "repo" / TEST_FILE).write_text(MASKED_TEST)
    (task / "golden_files" / "unit_test_1_golden.py").write_text(GOLDEN_TEST)
    implementation = {
        "instruction": "Implement double_agent.",
        "index": 1,
        "category": "Arithmetic",
        "goal_file": TEST_FILE,
        "goal_function": "double_agent",
        "class_name": "",
        "golden_file": "golden_files/unit_test_1_golden.py",
        "retrieval_context": [],
        "unit_test_file": TEST_FILE,
    }
    info = {
        "instance_id": 3,
        "paper_name": "Doubling",
        "folder_name": TASK,
        "paper_url": "",
        "year": 2025,
        "repo_url": "",
        "repo_folder_name": "repo",
        "implementations": [implementation],
    }
    (task / "info.json").write_text(json.dumps(info, indent=4))
    return bench


def _submit(root: Path, system: str, source: str) -> Path:
    path = root / "subs" / system / TASK / "repo" / TEST_FILE
    path.parent.mkdir(parents=True)
    path.write_text(source)
    return path.parents[3]


#: Wrong goal function, and the test rewritten so that it cannot fail.
REWRITTEN = (
    "import unittest\n\n\ndef double_agent(x):\n    return 0\n\n\n"
    "class TestDouble(unittest.TestCase):\n    def test_double(self):\n        pass\n\n\n"
    'if __name__ == "__main__":\n    unittest.main()\n'
)


@pytest.mark.parametrize(
    ("goal_file", "tests", "expected"),
    [
        ("unit_test/unit_test_1.py", ["unit_test/unit_test_1.py"], True),
        ("unit_test/helpers.py", ["unit_test/unit_test_1.py"], True),
        ("tests/util.py", ["tests/check.py"], True),
        ("src/test_model.py", ["unit_test/unit_test_1.py"], True),
        ("src/conftest.py", ["unit_test/unit_test_1.py"], True),
        ("trainers.py", ["unit_test/unit_test_1.py"], False),
        ("src/contest.py", ["check.py"], False),
    ],
)
def test_what_counts_as_a_test_file(
    tmp_path: Path, goal_file: str, tests: list[str], expected: bool
) -> None:
    [task] = load_benchmark(_task(tmp_path / "bench")).tasks
    impl = task.implementations[0]
    impl.goal_file = goal_file
    impl.unit_test_file = tests[0]
    assert goal_is_test_file(task, impl) is expected


def test_only_the_goal_function_of_a_submitted_test_file_is_taken(tmp_path: Path) -> None:
    tasks = load_benchmark(_task(tmp_path / "bench")).tasks
    honest = GOLDEN_TEST.replace("class TestDouble", "# the agent's notes\nclass TestDouble")
    for system, source in [("rewrites", REWRITTEN), ("honest", honest)]:
        [candidate] = load_candidates(Submission(_submit(tmp_path, system, source)), tasks)
        assert candidate.reason == ""
        kept = MASKED_TEST if system == "rewrites" else GOLDEN_TEST
        expected = kept.replace(
            'def double_agent(x):\n    """Return twice x."""\n    # TODO: Implement this '
            "function\n    pass\n",
            "def double_agent(x):\n    return 0\n" if system == "rewrites" else GOAL,
        )
        assert candidate.source == expected.encode()  # the tests are the task's own


@pytest.mark.parametrize(
    ("source", "reason"),
    [
        ("import unittest\n", "defines no function `double_agent`"),
        ("def double_agent(x:\n", "does not parse"),
        (GOAL + "\n" + GOAL.replace("2 * x", "3 * x"), "defined 2 times at the same level"),
    ],
)
def test_a_test_file_without_a_usable_goal_is_the_systems_failure(
    tmp_path: Path, source: str, reason: str
) -> None:
    tasks = load_benchmark(_task(tmp_path / "bench")).tasks
    [candidate] = load_candidates(Submission(_submit(tmp_path, "bad", source)), tasks)
    assert candidate.source is None
    assert candidate.reason.startswith("the goal file is a test file, so only the goal function")
    assert reason in candidate.reason


def test_predictions_for_a_test_file_goal_bring_no_helpers(tmp_path: Path) -> None:
    bench = _task(tmp_path / "bench")
    hook = (
        GOAL.replace("2 * x", "0")
        + "\n\ndef load_tests(loader, tests, pattern):\n    return unittest.TestSuite()\n"
    )
    preds = tmp_path / "preds.jsonl"
    preds.write_text(
        "".join(
            json.dumps({"task": TASK, "implementation": 1, "system": system, "source": source})
            + "\n"
            for system, source in [("hook", hook), ("plain", GOAL)]
        )
    )
    results = run_evaluation(bench, [Submission(preds)], tmp_path / "out", backend=LocalBackend())
    runs = {run.system: run for run in results.runs}
    assert runs["plain"].verdict == "pass"
    assert runs["hook"].verdict != "pass"
    assert "only the goal function is taken" in runs["hook"].reason
    assert "load_tests" in runs["hook"].reason


def test_a_rewritten_test_fails_when_run(tmp_path: Path) -> None:
    bench = _task(tmp_path / "bench")
    subs = [
        Submission(_submit(tmp_path, "rewrites", REWRITTEN)),
        Submission(_submit(tmp_path, "honest", GOLDEN_TEST)),
    ]
    results = run_evaluation(bench, subs, tmp_path / "out", backend=LocalBackend())
    runs = {run.system: run.verdict for run in results.runs}
    assert runs == {"rewrites": "fail", "honest": "pass"}
