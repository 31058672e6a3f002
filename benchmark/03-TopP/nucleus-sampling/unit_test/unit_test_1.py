"""Unit tests of sampling.filters.top_p_filter against recorded reference outputs.

Run from the repository folder: python unit_test/unit_test_1.py
"""

import json
import unittest
from pathlib import Path

import numpy as np

from sampling.filters import top_p_filter

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "unit_test_1.json"


def load_cases():
    return json.loads(FIXTURES.read_text(encoding="utf-8"))["cases"]


class TestTopPFilter(unittest.TestCase):
    def check_case(self, case):
        for call in case["calls"]:
            got = np.asarray(
                top_p_filter(
                    np.array(call["logits"]),
                    call["top_p"],
                    min_tokens_to_keep=call["min_tokens_to_keep"],
                    temperature=call["temperature"],
                ),
                dtype=np.float64,
            )
            want = np.array(call["expected"])
            self.assertEqual(got.shape, want.shape, case["name"])
            self.assertEqual(
                np.flatnonzero(got).tolist(),
                np.flatnonzero(want).tolist(),
                f"{case['name']}: nucleus of top_p={call['top_p']}",
            )
            np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12, err_msg=case["name"])

    def test_case_1_peaked_distribution(self):
        self.check_case(load_cases()[0])

    def test_case_2_flat_distribution_and_ties(self):
        self.check_case(load_cases()[1])

    def test_case_3_min_tokens_and_temperature(self):
        self.check_case(load_cases()[2])


if __name__ == "__main__":
    unittest.main()
