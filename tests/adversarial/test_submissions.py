"""Hostile submissions end to end (eval --judge): symlinks, special files, huge files.

A submission is data: nothing in it is followed or opened as anything but a regular
file within the cap. Each such entry is its system's failure with a clear reason (never
pass, never infra-error), and no byte of a host file appears anywhere under the results
folder or in a request to the judge (whose environment holds the API key).
"""

from __future__ import annotations

import json
import os
import socket
import uuid
from pathlib import Path
from typing import Any

import pytest

from lmr_author.cli import main
from lmr_author.domain.task import Task
from tests.support.openai_server import OpenAIServer, Reply
from tests.support.sandbox_tasks import write_task

pytestmark = [pytest.mark.docker, pytest.mark.usefixtures("no_leftovers")]


def _goal(sub: Path, task: Task) -> Path:
    path = sub / task.name / task.repo_folder_name / "calc.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def test_hostile_submissions_are_their_systems_failures_and_leak_nothing(
    docker_client: Any,
    tmp_path: Path,
    image_cleanup: None,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    task = write_task(tmp_path / "bench", tag="advsub")
    secret = f"HOST-SECRET-{uuid.uuid4().hex}"
    host_file = tmp_path / "host" / "key.txt"
    host_file.parent.mkdir()
    host_file.write_text(f"def add(a, b):\n    return a + b  # {secret}\n")
    subs = tmp_path / "subs"

    _goal(subs / "goal-symlink", task).symlink_to(host_file)
    # A folder on the path is a symlink to a host folder holding a well-formed goal file.
    decoy = tmp_path / "host" / "decoy" / task.repo_folder_name / "calc.py"
    decoy.parent.mkdir(parents=True)
    decoy.write_text(host_file.read_text())
    (subs / "folder-symlink").mkdir()
    (subs / "folder-symlink" / task.name).symlink_to(decoy.parent.parent)
    os.mkfifo(_goal(subs / "goal-fifo", task))
    listener = socket.socket(socket.AF_UNIX)
    with monkeypatch.context() as here:  # a socket path must be short: bind relatively
        here.chdir(_goal(subs / "goal-socket", task).parent)
        listener.bind("calc.py")
    with _goal(subs / "goal-huge", task).open("wb") as handle:
        handle.truncate(1 << 30)  # 1 GiB, sparse
    _goal(subs / "loop", task).symlink_to(_goal(subs / "loop", task))

    predictions = tmp_path / "predictions.jsonl"
    lines = [
        {
            "system": "huge-prediction",
            "source": "def add(a, b):\n    return a + b\n" + "#" * (5 << 20),
        },
        {"system": "nul-prediction", "source": "def add(a, b):\n    return a + b  # \x00\n"},
    ]
    predictions.write_text(
        "".join(
            json.dumps({"task": task.name, "implementation": 1, **line}) + "\n" for line in lines
        )
    )
    output = tmp_path / "out"
    args = ["eval", str(tmp_path / "bench"), "-o", str(output)]
    for folder in sorted(subs.iterdir()):
        args += ["-s", str(folder)]
    args += ["-s", str(predictions)]
    with OpenAIServer(default=Reply.answer(1, ["wrong"])) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        code = main([*args, "--judge", "--judge-model", "judge-x", "--json"])
        listener.close()
        requests = [json.dumps(request.body) for request in server.requests]
    captured = capsys.readouterr()
    assert code == 0, captured.err  # the evaluation itself worked
    results = json.loads((output / "results.json").read_text())
    runs = {run["system"]: run for run in results["runs"]}
    expected = {
        "goal-symlink": "the goal file is a symlink",
        "folder-symlink": f"the folder {task.name} is a symlink",
        "goal-fifo": "the goal file is a FIFO",
        "goal-socket": "the goal file is a socket",
        "goal-huge": "the goal file is larger than",
        "loop": "the goal file is a symlink",
        "huge-prediction": "the prediction is larger than",
    }
    for system, reason in expected.items():
        assert runs[system]["verdict"] in ("fail", "error"), runs[system]
        assert reason in runs[system]["reason"], runs[system]
    assert runs["nul-prediction"]["verdict"] in ("fail", "error"), runs["nul-prediction"]
    # Nothing of the host file, anywhere: results, runs, logs, judgments, requests.
    for path in output.rglob("*"):
        if path.is_file():
            assert secret.encode() not in path.read_bytes(), path
    assert all(secret not in request for request in requests)
    assert secret not in captured.out + captured.err


# --- Goal functions inside the unit test file (published 03-DoLa, 06-RepE, 20-CAD) -------

_MASKED_TEST = '''\
import unittest


def double_agent(x):
    """Return twice x."""
    # TODO: Implement this function
    pass


class TestDouble(unittest.TestCase):
    def test_double(self):
        self.assertEqual(double_agent(21), 42)

    def test_zero(self):
        self.assertEqual(double_agent(0), 0)


if __name__ == "__main__":
    unittest.main()
'''
_GOAL = 'def double_agent(x):\n    """Return twice x."""\n    return 2 * x\n'
_GOLDEN_TEST = _MASKED_TEST.replace(
    'def double_agent(x):\n    """Return twice x."""\n    # TODO: Implement this function\n'
    "    pass\n",
    _GOAL,
)


def test_a_submission_cannot_rewrite_the_test_file_that_holds_its_goal(
    docker_client: Any,
    tmp_path: Path,
    image_cleanup: None,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """When the goal file is the test file, a submission hands in the whole test file:
    only its goal function is taken (spliced into the task's masked test file), so
    neutered tests, an early exit at import or a ``load_tests`` hook change nothing."""
    task = write_task(tmp_path / "bench", tag="advtestgoal", golden=_GOLDEN_TEST)
    test_file = "unit_test/unit_test_1.py"
    (task.repo_dir / test_file).write_text(_MASKED_TEST)
    info = json.loads(task.info_path.read_text())
    info["implementations"][0].update(goal_file=test_file, goal_function="double_agent")
    task.info_path.write_text(json.dumps(info, indent=4))
    (task.repo_dir / "calc.py").write_text("")

    wrong = _GOAL.replace("return 2 * x", "return 0")
    submitted = {
        # The tests rewritten to check nothing.
        "neutered": _MASKED_TEST.replace("# TODO: Implement this function\n    pass", "return 0")
        .replace("self.assertEqual(double_agent(21), 42)", "pass")
        .replace("self.assertEqual(double_agent(0), 0)", "pass"),
        # Exit with status 0 at import, before any test runs.
        "exits-early": "import os\nos._exit(0)\n\n" + wrong,
        # unittest's load_tests protocol: replace the suite with an empty one.
        "load-tests": wrong
        + "\n\ndef load_tests(loader, tests, pattern):\n    return unittest.TestSuite()\n",
        "honest": _GOLDEN_TEST,
    }
    subs = tmp_path / "subs"
    args = ["eval", str(tmp_path / "bench"), "-o", str(tmp_path / "out"), "--json"]
    for system, source in submitted.items():
        path = subs / system / task.name / task.repo_folder_name / test_file
        path.parent.mkdir(parents=True)
        path.write_text(source)
        args += ["-s", str(subs / system)]
    predictions = tmp_path / "predictions.jsonl"
    predictions.write_text(
        json.dumps(
            {
                "task": task.name,
                "implementation": 1,
                "system": "hook-prediction",
                "source": submitted["load-tests"],
            }
        )
        + "\n"
    )
    args += ["-s", str(predictions)]

    code = main(args)
    captured = capsys.readouterr()
    assert code == 0, captured.err
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    runs = {run["system"]: run for run in results["runs"]}
    assert runs["honest"]["verdict"] == "pass", runs["honest"]  # the task itself works
    for system in ("neutered", "exits-early", "load-tests"):
        assert runs[system]["verdict"] == "fail", runs[system]
    assert runs["hook-prediction"]["verdict"] in ("fail", "error"), runs["hook-prediction"]
    assert "load_tests" in runs["hook-prediction"]["reason"], runs["hook-prediction"]
