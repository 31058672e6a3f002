"""Unit test of `preference_loss` (dpo/losses.py): replays recorded calls of the golden code.

The recorded INPUTS are in unit_test/fixtures/preference_loss_*.json (in this
repository); the EXPECTED outputs are kept outside the repository, in
<task folder>/expected_outputs/unit_test_1/, so that code under test never sees them.
Each input is given to the function under test; what it returns, and the inputs the
golden call changed in place (as the call leaves them), make its outcome. Under
lmr-author's harness (LMR_REPLAY_OUT set) each outcome is written there and compared on
the host; run by hand, the test compares with the expected outcomes
(LMR_REPLAY_EXPECTED or beside the task). Run from the repository folder:
    python unit_test/unit_test_1.py
"""

import glob
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, REPO)
sys.path.insert(0, HERE)

import lmr_replay  # noqa: E402
from dpo.losses import preference_loss  # noqa: E402

EXPECTED = os.environ.get("LMR_REPLAY_EXPECTED") or os.path.join(
    os.path.dirname(REPO), "expected_outputs", "unit_test_1"
)
OUT = os.environ.get("LMR_REPLAY_OUT")


class TestPreferenceLoss(unittest.TestCase):
    def test_recorded_cases(self):
        paths = sorted(glob.glob(os.path.join(HERE, "fixtures", "preference_loss_*.json")))
        self.assertTrue(paths, "no recorded fixtures found")
        for path in paths:
            name = os.path.basename(path)
            with self.subTest(fixture=name):
                with open(path, encoding="utf-8") as handle:
                    case, watch = lmr_replay.load_fixture(handle.read())
                actual = preference_loss(*case["args"], **case["kwargs"])
                # What the golden call changed in its inputs is compared too.
                outcome = lmr_replay.dumps(
                    actual, allow_objects=True, changed=lmr_replay.inputs_after(case, watch)
                )
                if OUT:
                    with open(os.path.join(OUT, name), "w", encoding="utf-8") as handle:
                        handle.write(outcome)
                expected_path = os.path.join(EXPECTED, name)
                if os.path.exists(expected_path):
                    with open(expected_path, encoding="utf-8") as handle:
                        expected = lmr_replay.read_outcome(handle.read())
                    got = lmr_replay.read_outcome(outcome)
                    problems = lmr_replay.outcome_mismatches(expected, got)
                    self.assertFalse(
                        problems,
                        f"{name}: {'; '.join(problems)}: expected {expected!r:.300}, "
                        f"got {got!r:.300}",
                    )
                elif not OUT:
                    self.fail(f"no expected output for {name} (looked in {EXPECTED})")


if __name__ == "__main__":
    unittest.main()
