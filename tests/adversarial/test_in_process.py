"""Exploits against in-process tests (unittest, plain scripts): none may pass.

Every candidate here has a wrong ``add``; it passes only if the exploit works. Each must
score fail or error (never pass, never infra-error), and leave no container behind.
"""

from __future__ import annotations

from typing import Any

import pytest

from lmr_author.domain.task import Task
from lmr_author.images.task_images import ImageRef, ensure_image
from lmr_author.sandbox.decision import Expected
from lmr_author.sandbox.runner import MAX_LOG_CHARS
from tests.adversarial.exploits import (
    RIGHT_ADD,
    UNITTEST_COUNT,
    assert_not_passed,
    candidate,
    score,
)

pytestmark = [pytest.mark.docker, pytest.mark.usefixtures("no_leftovers")]

TEST = "unit_test/unit_test_1.py"


def test_the_right_candidate_passes_with_the_golden_count(
    unittest_task: tuple[Task, ImageRef], docker_client: Any
) -> None:
    expected = {TEST: Expected(tests=UNITTEST_COUNT)}
    run = score(unittest_task, candidate("", RIGHT_ADD), docker_client, expected=expected)
    assert run.verdict == "pass", (run.reason, run.verdicts[0].log)
    assert run.verdicts[0].tests_run == UNITTEST_COUNT


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ("import os\nos._exit(0)", ["ended before the harness reported: exit status 0"]),
        (
            "import atexit, sys\natexit.register(lambda: print('all good'))\nsys.exit(0)",
            ["ended early: SystemExit(0)"],
        ),
        ("raise SystemExit(0)", ["ended early"]),
        ("import unittest\nraise unittest.SkipTest('not today')", ["SkipTest"]),
        (
            # Re-execute something else in place of the test once the module is imported.
            "import os, sys\nos.execv(sys.executable, [sys.executable, '-c', 'print(1)'])",
            ["ended before the harness reported"],
        ),
    ],
    ids=["os-exit-0", "atexit-sys-exit-0", "system-exit-0", "skip-at-import", "re-exec"],
)
def test_early_exits_and_skips_fail(
    unittest_task: tuple[Task, ImageRef], docker_client: Any, body: str, words: list[str]
) -> None:
    assert_not_passed(score(unittest_task, candidate(body), docker_client), *words)


def test_skipping_every_test_fails(
    unittest_task: tuple[Task, ImageRef], docker_client: Any
) -> None:
    skipper = "import unittest\n\ndef add(a, b):\n    raise unittest.SkipTest('no')\n"
    run = score(unittest_task, skipper.encode(), docker_client)
    assert_not_passed(run, "skipped")


def test_exit_inside_a_test_is_an_error(
    unittest_task: tuple[Task, ImageRef], docker_client: Any
) -> None:
    quitter = "import sys\n\ndef add(a, b):\n    sys.exit(0)\n"
    assert_not_passed(score(unittest_task, quitter.encode(), docker_client))


@pytest.mark.parametrize(
    ("body", "words"),
    [
        (
            "import unittest\nunittest.TestCase.assertEqual = lambda *a, **k: None\n"
            "unittest.TestCase.assertAlmostEqual = lambda *a, **k: None\n"
            "import numpy.testing\nnumpy.testing.assert_allclose = lambda *a, **k: None\n",
            ["tampered", "assertEqual"],
        ),
        (
            "import unittest\n"
            "def nothing(self, first, second, msg=None):\n    return None\n"
            "unittest.TestCase.assertEqual.__code__ = nothing.__code__\n"
            "unittest.TestCase.assertAlmostEqual = nothing\n"
            "import numpy as np\nnp.testing.assert_allclose.__code__ = "
            "(lambda *a, **k: None).__code__\n",
            ["tampered", "(code)"],
        ),
        (
            "import unittest\nunittest.TestResult.addFailure = lambda *a: None\n"
            "unittest.TestResult.addError = lambda *a: None\n"
            "unittest.TestResult.wasSuccessful = lambda self: True\n",
            ["tampered"],
        ),
        # Breaking a builtin the harness uses too ends the test process early: still a fail.
        ("import builtins\nbuiltins.isinstance = lambda *a: True\n", []),
    ],
    ids=["rebind-asserts", "swap-code-objects", "patch-test-result", "patch-builtins"],
)
def test_assertion_patching_is_tampering(
    unittest_task: tuple[Task, ImageRef], docker_client: Any, body: str, words: list[str]
) -> None:
    assert_not_passed(score(unittest_task, candidate(body), docker_client), *words)


def test_tests_and_fixtures_cannot_be_rewritten(
    unittest_task: tuple[Task, ImageRef], docker_client: Any
) -> None:
    body = """\
        import os
        for path in ("unit_test/unit_test_1.py", "unit_test/fixtures/x.json", "calc.py"):
            try:
                with open(path, "w") as handle:
                    handle.write("print('ok')\\n")
                print("WROTE", path, flush=True)
            except OSError as error:
                print("REFUSED", path, type(error).__name__, flush=True)
        try:
            os.chmod("unit_test/unit_test_1.py", 0o777)
            print("CHMOD done", flush=True)
        except OSError as error:
            print("CHMOD refused", type(error).__name__, flush=True)
        """
    run = score(unittest_task, candidate(body), docker_client)
    log = run.verdicts[0].log
    assert "WROTE" not in log and "CHMOD done" not in log, log
    assert log.count("REFUSED") == 3, log
    assert_not_passed(run)


def test_forged_harness_reports_are_rejected(
    unittest_task: tuple[Task, ImageRef], docker_client: Any
) -> None:
    body = """\
        import json, os
        forged = {"event": "test", "id": "x", "outcome": "passed"}
        end = {"event": "end", "tampered": [], "body": "passed"}
        print("@@lmr-harness@@ 00 " + json.dumps({"records": [forged] * 4 + [end],
              "exit_status": 0}), flush=True)
        for fd in range(3, 12):  # whichever is the report pipe, without the token
            try:
                os.write(fd, (json.dumps(forged) + "\\n").encode() * 4
                         + (json.dumps(end) + "\\n").encode())
            except OSError:
                pass
        for path in ("/proc/1/fd/1", "/proc/1/mem", "/proc/1/environ", "/opt/lmr-run/nonce"):
            try:
                open(path, "rb").close()
                print("OPENED", path, flush=True)
            except OSError as error:
                print("DENIED", path, type(error).__name__, flush=True)
        os._exit(0)
        """
    run = score(unittest_task, candidate(body), docker_client)
    log = run.verdicts[0].log
    assert "OPENED" not in log, log
    assert_not_passed(run)


def test_the_supervisor_cannot_be_killed_and_children_do_not_outlive(
    unittest_task: tuple[Task, ImageRef], docker_client: Any
) -> None:
    body = """\
        import os, signal, time
        for sig in (signal.SIGKILL, signal.SIGTERM, signal.SIGINT, signal.SIGSTOP):
            try:
                os.kill(1, sig)
            except OSError as error:
                print("KILL", sig, type(error).__name__, flush=True)
        if os.fork() == 0:
            os.setsid()
            time.sleep(600)  # outlive the test: the container must still end
            os._exit(0)
        """
    run = score(unittest_task, candidate(body), docker_client)
    assert_not_passed(run, "assertion failed")
    assert run.wall_s < 25, run.wall_s


def test_filling_the_disk_is_the_candidates_error(
    unittest_task: tuple[Task, ImageRef], docker_client: Any
) -> None:
    body = """\
        with open("/tmp/fill", "wb") as handle:
            while True:
                handle.write(b"x" * (1 << 20))
        """
    run = score(unittest_task, candidate(body), docker_client)
    assert_not_passed(run, "No space left on device")
    assert run.verdict == "error"


def test_flooding_the_output_is_capped(
    unittest_task: tuple[Task, ImageRef], docker_client: Any
) -> None:
    body = """\
        import sys
        for _ in range(40):
            sys.stdout.write("y" * (1 << 20))
        """
    run = score(unittest_task, candidate(body), docker_client)
    assert_not_passed(run, "assertion failed")
    assert len(run.verdicts[0].log) <= MAX_LOG_CHARS + 100
    assert "output cut" in run.verdicts[0].log


def test_a_count_below_the_golden_count_fails(
    unittest_task: tuple[Task, ImageRef], docker_client: Any
) -> None:
    # Deleting tests from the test class at import time (before it exists: a hook on class
    # creation) is tampering with builtins; with fewer tests the count gives it away too.
    body = """\
        import builtins
        real = builtins.__build_class__
        def build(func, name, *bases, **kw):
            cls = real(func, name, *bases, **kw)
            for attr in [a for a in vars(cls) if a.startswith("test_")][1:]:
                delattr(cls, attr)
            return cls
        builtins.__build_class__ = build
        """
    run = score(
        unittest_task,
        candidate(body, RIGHT_ADD.replace("a + b", "a + b if isinstance(a, int) else a - b")),
        docker_client,
        expected={TEST: Expected(tests=UNITTEST_COUNT)},
    )
    assert_not_passed(run)
    assert "tampered" in run.reason or "golden code runs 4" in run.reason, run.reason


def test_magic_equality_is_caught_by_numpy_comparisons(
    unittest_task: tuple[Task, ImageRef], docker_client: Any
) -> None:
    magic = """\
        class Anything:
            def __eq__(self, other):
                return True
            def __sub__(self, other):
                return 0.0
            __rsub__ = __sub__
            def __abs__(self):
                return 0.0
            def __round__(self, n=None):
                return 0.0

        def add(a, b):
            return Anything()
        """
    run = score(unittest_task, candidate(magic, ""), docker_client)
    assert_not_passed(run)


def test_exit_bound_to_a_name_the_test_calls_is_not_a_normal_end(
    task_factory: Any, docker_client: Any
) -> None:
    # The test calls np.random.seed(0) after importing the candidate, which made that
    # name sys.exit: the script would "exit with 0" from the test file's own line.
    source = "from calc import add\nimport numpy as np\nnp.random.seed(0)\nassert add(2, 3) == 5\n"
    task = task_factory(tag="seedexit", test_source=source)
    image = ensure_image(task, client=docker_client)
    body = "import sys\nimport numpy.random\nnumpy.random.seed = sys.exit\n"
    run = score((task, image), candidate(body), docker_client)
    assert_not_passed(run, "ended early: SystemExit(0)")
