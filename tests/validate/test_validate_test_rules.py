"""lfs-pointer, test-never-fails and test-missing-target."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.validate.samples import REPO, UNIT_TEST

MakeTask = Callable[..., Path]
TEST = f"{REPO}/unit_test/unit_test_1.py"
LFS_POINTER = (
    b"version https://git-lfs.github.com/spec/v1\n"
    b"oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\n"
    b"size 12345678\n"
)


# -- lfs-pointer ----------------------------------------------------------------------
def test_fixture_that_is_an_lfs_pointer(make_task: MakeTask, findings: Callable) -> None:
    test = UNIT_TEST + '\nINPUTS = "unit_test/data/inputs.pt"\n'
    task = make_task(files={f"{REPO}/unit_test/data/inputs.pt": LFS_POINTER, TEST: test})
    [found] = findings(task, "lfs-pointer")
    assert found.severity == "error" and found.file == f"{REPO}/unit_test/data/inputs.pt"
    assert "12,345,678 bytes" in found.message


def test_replay_fixture_that_is_an_lfs_pointer(make_task: MakeTask, findings: Callable) -> None:
    task = make_task(files={f"{REPO}/unit_test/fixtures/loss_1.json": LFS_POINTER})
    [found] = findings(task, "lfs-pointer")
    assert found.severity == "error"


def test_old_pointers_no_test_reads_only_warn(make_task: MakeTask, findings: Callable) -> None:
    """Data of an earlier version of the tests (unit_test_1/, pickles beside the tests)
    that the task's tests never read is reported, but blocks nothing."""
    task = make_task(
        files={
            f"{REPO}/unit_test/get_delta_input.pkl": LFS_POINTER,
            f"{REPO}/unit_test_1/get_delta_output.pkl": LFS_POINTER,
        }
    )
    found = findings(task, "lfs-pointer")
    assert [f.severity for f in found] == ["warning", "warning"]
    assert all("no unit test of the task reads it" in f.message for f in found)


def test_lfs_pointer_outside_the_tests_is_a_warning(
    make_task: MakeTask, findings: Callable
) -> None:
    task = make_task(files={f"{REPO}/checkpoints/model.bin": LFS_POINTER})
    [found] = findings(task, "lfs-pointer")
    assert found.severity == "warning"


def test_real_fixtures_are_quiet(make_task: MakeTask, findings: Callable) -> None:
    task = make_task(
        files={
            f"{REPO}/unit_test/data/inputs.pt": bytes(range(256)) * 8,
            f"{REPO}/unit_test/data/small.txt": "version 1\n",
        }
    )
    assert findings(task, "lfs-pointer") == []


# -- test-never-fails -----------------------------------------------------------------
LEGACY_TEST = """\
import logging
from trainers import preference_loss

logging.basicConfig(filename="unit_test/logs/unit_test_1.log", level=logging.INFO)

try:
    value = preference_loss(1.0, 0.0, beta=1.0)
    assert abs(value - 0.313) < 1e-3
    logging.info("Test Passed")
except AssertionError:
    logging.info("Test Failed")
"""

SILENT_TEST = """\
from trainers import preference_loss

print(preference_loss(1.0, 0.0))
"""


#: Two published tasks have this shape: a TestCase whose checks are caught and logged,
#: run by unittest.main(); it exits 0 whatever the goal function returns.
UNITTEST_LOGGING = """\
import logging
import unittest
from trainers import preference_loss

logging.basicConfig(filename="unit_test/logs/unit_test_1.log", level=logging.INFO)


class TestPreferenceLoss(unittest.TestCase):
    def test_value(self):
        try:
            self.assertAlmostEqual(preference_loss(1.0, 0.0, beta=1.0), 0.313, places=3)
            logging.info("Test Passed")
        except AssertionError as error:
            logging.info(f"Test Failed: {error}")


if __name__ == "__main__":
    unittest.main()
"""


@pytest.mark.parametrize(
    "test",
    [UNITTEST_LOGGING, SILENT_TEST + "import unittest\nunittest.main()\n"],
    ids=["unittest-logging-only", "unittest-main-without-checks"],
)
def test_unittest_main_is_not_a_check(test: str, make_task: MakeTask, findings: Callable) -> None:
    [found] = findings(make_task(files={TEST: test}), "test-never-fails")
    assert found.file == TEST


def test_legacy_log_only_test(make_task: MakeTask, findings: Callable) -> None:
    [found] = findings(make_task(files={TEST: LEGACY_TEST}), "test-never-fails")
    assert found.severity == "warning" and "legacy" in found.message and found.file == TEST


def test_test_without_any_check(make_task: MakeTask, findings: Callable) -> None:
    [found] = findings(make_task(files={TEST: SILENT_TEST}), "test-never-fails")
    assert "no assert" in found.message


def test_bare_except_also_swallows(make_task: MakeTask, findings: Callable) -> None:
    test = LEGACY_TEST.replace("except AssertionError:", "except:")
    assert len(findings(make_task(files={TEST: test}), "test-never-fails")) == 1


@pytest.mark.parametrize(
    "test",
    [
        LEGACY_TEST.replace(
            'logging.info("Test Failed")', 'logging.info("Test Failed")\n    raise'
        ),
        LEGACY_TEST.replace('logging.info("Test Failed")', "sys.exit(1)"),
        LEGACY_TEST.replace("except AssertionError:", "except ValueError:"),
        SILENT_TEST + "import numpy as np\nnp.testing.assert_allclose(1.0, 1.0)\n",
        UNITTEST_LOGGING.replace("except AssertionError as error:", "except ValueError as error:"),
    ],
    ids=["re-raise", "exit-1", "other-exception", "numpy-assert", "unittest-that-asserts"],
)
def test_tests_that_can_fail_are_quiet(test: str, make_task: MakeTask, findings: Callable) -> None:
    assert findings(make_task(files={TEST: test}), "test-never-fails") == []


# -- test-missing-target --------------------------------------------------------------
def test_unit_test_that_ignores_the_goal_function(make_task: MakeTask, findings: Callable) -> None:
    test = "from trainers import helper\n\nassert helper(1) == 2\n"
    [found] = findings(make_task(files={TEST: test}), "test-missing-target")
    assert "'preference_loss'" in found.message and found.file == TEST


def test_class_reference_counts(make_task: MakeTask, findings: Callable) -> None:
    def edit(data: dict) -> None:
        data["implementations"][0]["class_name"] = "Trainer"
        data["implementations"][0]["goal_function"] = "step"

    test = "import trainers\n\nassert trainers.Trainer().step(1) == 4\n"
    assert findings(make_task(info=edit, files={TEST: test}), "test-missing-target") == []


def test_unit_test_calling_the_goal_function_is_quiet(
    make_task: MakeTask, findings: Callable
) -> None:
    assert findings(make_task(), "test-missing-target") == []


# -- test-missing-fixture -------------------------------------------------------------
FIXTURE_TEST = """\
import numpy as np
from trainers import preference_loss

inputs = np.load("unit_test/data/inputs.npy")
assert preference_loss(1.0, 0.0) > 0
"""


def test_fixture_named_by_the_test_is_missing(make_task: MakeTask, findings: Callable) -> None:
    [found] = findings(make_task(files={TEST: FIXTURE_TEST}), "test-missing-fixture")
    assert found.where == "line 4" and "unit_test/data/inputs.npy" in found.message


def test_present_fixture_is_quiet(make_task: MakeTask, findings: Callable) -> None:
    task = make_task(files={TEST: FIXTURE_TEST, f"{REPO}/unit_test/data/inputs.npy": b"\x93NUMPY"})
    assert findings(task, "test-missing-fixture") == []


def test_fixture_relative_to_the_test_folder_counts(
    make_task: MakeTask, findings: Callable
) -> None:
    test = FIXTURE_TEST.replace("unit_test/data/inputs.npy", "data/inputs.npy")
    task = make_task(files={TEST: test, f"{REPO}/unit_test/data/inputs.npy": b"\x93NUMPY"})
    assert findings(task, "test-missing-fixture") == []


# -- replay-tests-nothing -------------------------------------------------------------
_NONE = b'{"format": "lmr-replay/1", "value": null}'


def test_replay_outcomes_that_are_all_none_test_nothing(
    make_task: MakeTask, findings: Callable
) -> None:
    files = {f"expected_outputs/unit_test_1/loss_{n}.json": _NONE for n in (1, 2)}
    [found] = findings(make_task(files=files), "replay-tests-nothing")
    assert found.severity == "error" and found.file == "expected_outputs/unit_test_1"
    assert "(2) returned None" in found.message


@pytest.mark.parametrize(
    "other",
    [
        b'{"format": "lmr-replay/1", "value": 0.5}',
        b'{"format": "lmr-replay/1", "value": null, "changed": {"self": {"lr": 0.1}}}',
    ],
    ids=["a-value", "a-change-in-place"],
)
def test_one_outcome_that_shows_work_is_enough(
    other: bytes, make_task: MakeTask, findings: Callable
) -> None:
    files = {
        "expected_outputs/unit_test_1/loss_1.json": _NONE,
        "expected_outputs/unit_test_1/loss_2.json": other,
    }
    assert findings(make_task(files=files), "replay-tests-nothing") == []
