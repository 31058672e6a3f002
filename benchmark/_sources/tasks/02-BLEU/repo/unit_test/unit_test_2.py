"""Unit tests of bleu.score.brevity_penalty against recorded reference outputs.

Run from the repository folder: python unit_test/unit_test_2.py
"""

import json
import math
import unittest
from pathlib import Path

from bleu.score import brevity_penalty

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "unit_test_2.json"


def load_cases():
    return json.loads(FIXTURES.read_text(encoding="utf-8"))["cases"]


class TestBrevityPenalty(unittest.TestCase):
    def check_case(self, case):
        for corpus in case["corpora"]:
            got = brevity_penalty(corpus["candidate_lengths"], corpus["reference_lengths"])
            self.assertTrue(
                math.isclose(float(got), corpus["expected"], rel_tol=1e-9, abs_tol=1e-12),
                f"{case['name']}: {corpus} gave {got}",
            )

    def test_case_1_short_corpus(self):
        self.check_case(load_cases()[0])

    def test_case_2_closest_reference_and_ties(self):
        self.check_case(load_cases()[1])

    def test_case_3_long_and_empty_corpus(self):
        self.check_case(load_cases()[2])


if __name__ == "__main__":
    unittest.main()
