"""Exploits against legacy-log tests and replay tests: none may pass.

Legacy: the verdict needs the harness's end, exit status 0, the golden number of
"Passed" lines and no "Failed"; the log is read by the supervisor, never followed,
never whole. Replay: the expected outputs are never in the container, and the outputs
are compared on the host, so only computing the right values passes.
"""

from __future__ import annotations

from typing import Any

import pytest

from lmr_author.domain.task import Task
from lmr_author.images.task_images import ImageRef, ensure_image
from lmr_author.sandbox.decision import Expected
from lmr_author.sandbox.replay import EXPECTED_DIR
from tests.adversarial.exploits import (
    RIGHT_ADD,
    assert_not_passed,
    candidate,
    score,
    write_replay_task,
)

pytestmark = [pytest.mark.docker, pytest.mark.usefixtures("no_leftovers")]

TEST = "unit_test/unit_test_1.py"
LOG = "unit_test/logs/unit_test_1.log"
LEGACY = {TEST: Expected(tests=1, legacy_passed=2)}


def test_legacy_golden_passes_with_its_counts(
    legacy_task: tuple[Task, ImageRef], docker_client: Any
) -> None:
    run = score(legacy_task, candidate("", RIGHT_ADD), docker_client, expected=LEGACY)
    assert run.verdict == "pass", (run.reason, run.verdicts[0].log)
    assert run.verdicts[0].protocol == "legacy"


def test_legacy_crash_after_pass_fails(
    legacy_task: tuple[Task, ImageRef], docker_client: Any
) -> None:
    # Right on the first case ("Test Passed" logged), then the process dies.
    crasher = "calls = []\n\ndef add(a, b):\n    calls.append(1)\n    if len(calls) > 1:\n"
    crasher += "        import os\n        os._exit(3)\n    return a + b\n"
    run = score(legacy_task, crasher.encode(), docker_client, expected=LEGACY)
    assert_not_passed(run, "ended before the harness reported: exit status 3")


def test_legacy_log_forged_by_the_candidate_fails(
    legacy_task: tuple[Task, ImageRef], docker_client: Any
) -> None:
    body = f"""\
        import os, sys
        os.makedirs("unit_test/logs", exist_ok=True)
        with open("{LOG}", "w") as log:
            log.write("Test Passed\\nTest Passed\\n")
        sys.exit(1)
        """
    assert_not_passed(score(legacy_task, candidate(body), docker_client, expected=LEGACY))


def test_legacy_is_held_to_the_golden_number_of_passed_lines(
    legacy_task: tuple[Task, ImageRef], docker_client: Any
) -> None:
    # Right answers, but fewer "Passed" lines than the golden code wrote (e.g. a case cut).
    held = {TEST: Expected(tests=1, legacy_passed=3)}
    run = score(legacy_task, candidate("", RIGHT_ADD), docker_client, expected=held)
    assert_not_passed(run, "the golden code writes 3")


@pytest.mark.parametrize(
    ("make", "words"),
    [
        ("os.symlink(path, path)", ["legacy log was refused", "symlink"]),
        ("os.symlink('/proc/self/environ', path)", ["legacy log was refused", "symlink"]),
        ("os.mkfifo(path)", ["legacy log was refused", "not a regular file"]),
    ],
    ids=["symlink-loop", "symlink-to-host-file", "fifo"],
)
def test_legacy_log_that_is_not_a_file_is_the_candidates_fail(
    legacy_task: tuple[Task, ImageRef], docker_client: Any, make: str, words: list[str]
) -> None:
    # Right answers; on the last call the log is swapped for something that is not a file
    # (the test's own handle stays open on the unlinked one).
    body = f"""\
        import os
        calls = []
        def add(a, b):
            calls.append(1)
            if len(calls) == 2:
                path = "{LOG}"
                os.unlink(path)
                {make}
            return a + b
        """
    run = score(legacy_task, candidate(body, ""), docker_client, expected=LEGACY)
    assert_not_passed(run, *words)
    assert "PATH=" not in (run.verdicts[0].legacy_log or "") + run.reason


def test_sparse_huge_legacy_log_is_read_capped(
    legacy_task: tuple[Task, ImageRef], docker_client: Any
) -> None:
    body = f"""\
        calls = []
        def add(a, b):
            calls.append(1)
            if len(calls) == 2:
                with open("{LOG}", "r+b") as log:
                    log.truncate(1 << 30)  # 1 GiB, sparse
            return a - b
        """
    run = score(legacy_task, candidate(body, ""), docker_client, expected=LEGACY)
    assert_not_passed(run)
    assert len(run.verdicts[0].legacy_log or "") <= (1 << 20)


def test_replay_golden_passes_and_wrong_fails(
    replay_task: tuple[Task, ImageRef], docker_client: Any
) -> None:
    task, _ = replay_task
    golden = task.implementations[0].golden_path.read_bytes()
    run = score(replay_task, golden, docker_client)
    assert run.verdict == "pass", (run.reason, run.verdicts[0].log)
    assert run.verdicts[0].protocol == "replay"
    wrong = score(replay_task, candidate(""), docker_client)
    assert_not_passed(wrong, "differs from the expected output")


def test_replay_expected_outputs_are_not_in_the_container(
    replay_task: tuple[Task, ImageRef], docker_client: Any
) -> None:
    body = f"""\
        import os
        found = []
        for top in ("/", "/workspace"):
            for root, dirs, files in os.walk(top):
                dirs[:] = [d for d in dirs if d not in ("proc", "sys", "dev", "usr")]
                if "{EXPECTED_DIR}" in root or "{EXPECTED_DIR}" in dirs:
                    found.append(root)
        print("FOUND", found, flush=True)
        """
    run = score(replay_task, candidate(body), docker_client)
    assert "FOUND []" in run.verdicts[0].log, run.verdicts[0].log[-2000:]
    assert_not_passed(run)


def test_replay_expected_outputs_stay_out_of_even_a_copy_everything_image(
    tmp_path: Any, docker_client: Any, image_cleanup: None
) -> None:
    # A hand-written Dockerfile copying the whole task folder: the expected outputs and the
    # golden files are never sent to the engine, so they are not in the image either.
    dockerfile = "FROM python:3.11-slim\nARG DIR\nCOPY . /task\nWORKDIR /task/${DIR}\n"
    task = write_replay_task(tmp_path, tag="advcopyall", dockerfile=dockerfile)
    image = ensure_image(task, client=docker_client)
    body = f"""\
        import os
        print("FOUND", sorted(os.listdir("/task")), flush=True)
        print("HAS", os.path.exists("/task/{EXPECTED_DIR}"), flush=True)
        print("GOLDEN", os.path.exists("/task/golden_files"), flush=True)
        """
    run = score((task, image), candidate(body), docker_client)
    assert "HAS False" in run.verdicts[0].log, run.verdicts[0].log[-2000:]
    assert "GOLDEN False" in run.verdicts[0].log, run.verdicts[0].log[-2000:]
    assert_not_passed(run)
    golden = task.implementations[0].golden_path.read_bytes()
    assert score((task, image), golden, docker_client).verdict == "pass"


@pytest.mark.parametrize(
    ("add", "words"),
    [
        (
            "class Anything:\n    def __eq__(self, other):\n        return True\n\n"
            "def add(a, b):\n    return Anything()\n",
            ["differs"],
        ),
        (
            # Rewrite the harness's view: write "outputs" for every case, then leave.
            "import os, json\n\ndef add(a, b):\n    out = os.environ['LMR_REPLAY_OUT']\n"
            "    for name in os.listdir('unit_test/fixtures'):\n"
            "        with open(os.path.join(out, name), 'w') as f:\n"
            "            f.write(json.dumps({'format': 'lmr-replay/1', 'value': 5}))\n"
            "    os._exit(0)\n",
            ["ended before the harness reported"],
        ),
        (
            # On the last call, swap an output already written for a symlink to a host file.
            "import os\ncalls = []\n\ndef add(a, b):\n    calls.append(1)\n"
            "    if len(calls) == 3:\n        out = os.environ['LMR_REPLAY_OUT']\n"
            "        os.unlink(os.path.join(out, 'add_1.json'))\n"
            "        os.symlink('/etc/passwd', os.path.join(out, 'add_1.json'))\n"
            "    return a + b\n",
            ["refused (it is a symlink)"],
        ),
        (
            "def add(a, b):\n    return [0.0] * 3_000_000\n",
            # (Writing that much may also outlast the time limit on a loaded machine.)
            ["larger than the cap", "No space left on device", "time limit"],
        ),
    ],
    ids=["magic-equality", "forged-outputs-then-exit", "symlinked-outputs", "huge-output"],
)
def test_replay_cannot_be_fooled(
    replay_task: tuple[Task, ImageRef], docker_client: Any, add: str, words: list[str]
) -> None:
    run = score(replay_task, add.encode(), docker_client)
    assert_not_passed(run)
    assert any(word in run.reason for word in words), run.reason
    assert "root:x:0" not in run.reason
