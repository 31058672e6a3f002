"""Unit test of `modified_precision` (bleu/ngrams.py): replays recorded calls of the golden code.

The recorded INPUTS are in unit_test/fixtures/modified_precision_*.json (in this
repository); the EXPECTED outputs are kept outside the repository, in
<task folder>/expected_outputs/unit_test_1/, so that code under test never sees them.
Each input is given to the function under test. Under lmr-author's harness
(LMR_REPLAY_OUT set) each output is written there and compared on the host; run by
hand, the test compares with the expected outputs (LMR_REPLAY_EXPECTED or beside the
task). Run from the repository folder:
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
from bleu.ngrams import modified_precision  # noqa: E402

EXPECTED = os.environ.get("LMR_REPLAY_EXPECTED") or os.path.join(
    os.path.dirname(REPO), "expected_outputs", "unit_test_1"
)
OUT = os.environ.get("LMR_REPLAY_OUT")


class TestModifiedPrecision(unittest.TestCase):
    def test_recorded_cases(self):
        paths = sorted(glob.glob(os.path.join(HERE, "fixtures", "modified_precision_*.json")))
        self.assertTrue(paths, "no recorded fixtures found")
        for path in paths:
            name = os.path.basename(path)
            with self.subTest(fixture=name):
                with open(path, encoding="utf-8") as handle:
                    case = lmr_replay.loads(handle.read(), allow_objects=True)
                actual = modified_precision(*case["args"], **case["kwargs"])
                if OUT:
                    with open(os.path.join(OUT, name), "w", encoding="utf-8") as handle:
                        handle.write(lmr_replay.dumps(actual, allow_objects=True))
                expected_path = os.path.join(EXPECTED, name)
                if os.path.exists(expected_path):
                    with open(expected_path, encoding="utf-8") as handle:
                        expected = lmr_replay.loads(handle.read())
                    got = lmr_replay.loads(lmr_replay.dumps(actual, allow_objects=True))
                    self.assertTrue(
                        lmr_replay.close(expected, got),
                        f"{name}: expected {expected!r}, got {got!r}",
                    )
                elif not OUT:
                    self.fail(f"no expected output for {name} (looked in {EXPECTED})")


if __name__ == "__main__":
    unittest.main()
