"""Unit tests of bpe.learner.merge_pair against recorded reference outputs.

Run from the repository folder: python unit_test/unit_test_1.py
"""

import copy
import json
import unittest
from pathlib import Path

from bpe.learner import merge_pair

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "unit_test_1.json"


def load_cases():
    return json.loads(FIXTURES.read_text(encoding="utf-8"))["cases"]


def as_vocab(entries):
    return {tuple(symbols): freq for symbols, freq in entries}


class TestMergePair(unittest.TestCase):
    def check_case(self, case):
        for step in case["steps"]:
            vocab = as_vocab(step["vocab"])
            before = copy.deepcopy(vocab)
            got = merge_pair(tuple(step["pair"]), vocab)
            self.assertEqual(vocab, before, f"{case['name']}: the input vocabulary changed")
            self.assertEqual(
                {tuple(k): v for k, v in got.items()},
                as_vocab(step["expected"]),
                f"{case['name']}: merging {step['pair']}",
            )

    def test_case_1_merge_sequence(self):
        self.check_case(load_cases()[0])

    def test_case_2_repeated_and_boundary_pairs(self):
        self.check_case(load_cases()[1])

    def test_case_3_words_that_collide(self):
        self.check_case(load_cases()[2])


if __name__ == "__main__":
    unittest.main()
