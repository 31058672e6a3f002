"""Unit tests of rope.rotary.RotaryEmbedding.apply against recorded reference outputs.

Run from the repository folder: python unit_test/unit_test_1.py
"""

import json
import unittest
from pathlib import Path

import numpy as np

from rope.rotary import RotaryEmbedding

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "unit_test_1.json"


def load_cases():
    return json.loads(FIXTURES.read_text(encoding="utf-8"))["cases"]


class TestRotaryApply(unittest.TestCase):
    def check_case(self, case):
        rope = RotaryEmbedding(case["dim"], base=case["base"])
        got = np.asarray(
            rope.apply(np.array(case["x"]), np.array(case["positions"])), dtype=np.float64
        )
        want = np.array(case["expected"])
        self.assertEqual(got.shape, want.shape, case["name"])
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12, err_msg=case["name"])

    def test_case_1_consecutive_positions(self):
        self.check_case(load_cases()[0])

    def test_case_2_offset_positions_small_base(self):
        self.check_case(load_cases()[1])

    def test_case_3_unit_vectors(self):
        self.check_case(load_cases()[2])


if __name__ == "__main__":
    unittest.main()
