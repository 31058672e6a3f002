"""Unit tests of bleu.ngrams.modified_precision against recorded reference outputs.

Run from the repository folder: python unit_test/unit_test_1.py
"""

import json
import unittest
from pathlib import Path

from bleu.ngrams import modified_precision

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "unit_test_1.json"


def load_cases():
    return json.loads(FIXTURES.read_text(encoding="utf-8"))["cases"]


class TestModifiedPrecision(unittest.TestCase):
    def check_case(self, case):
        for order in case["orders"]:
            got = modified_precision(case["candidate"], case["references"], order["n"])
            self.assertEqual(
                tuple(int(x) for x in got),
                tuple(order["expected"]),
                f"{case['name']}: n={order['n']}",
            )

    def test_case_1_clipping(self):
        self.check_case(load_cases()[0])

    def test_case_2_two_references(self):
        self.check_case(load_cases()[1])

    def test_case_3_short_candidate(self):
        self.check_case(load_cases()[2])


if __name__ == "__main__":
    unittest.main()
