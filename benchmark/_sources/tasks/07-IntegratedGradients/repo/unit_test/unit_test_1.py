"""Unit tests of attribution.methods.integrated_gradients against recorded outputs.

Run from the repository folder: python unit_test/unit_test_1.py
"""

import json
import unittest
from pathlib import Path

import numpy as np

from attribution.methods import integrated_gradients
from attribution.model import TanhClassifier

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "unit_test_1.json"


def load_cases():
    return json.loads(FIXTURES.read_text(encoding="utf-8"))["cases"]


class TestIntegratedGradients(unittest.TestCase):
    def check_case(self, case):
        model = TanhClassifier(**case["model"])
        baseline = None if case["baseline"] is None else np.array(case["baseline"])
        got = integrated_gradients(model, np.array(case["x"]), baseline, steps=case["steps"])
        got = np.asarray(got, dtype=np.float64)
        want = np.array(case["expected"])
        self.assertEqual(got.shape, want.shape, case["name"])
        np.testing.assert_allclose(got, want, rtol=1e-7, atol=1e-12, err_msg=case["name"])

    def test_case_1_zero_baseline(self):
        self.check_case(load_cases()[0])

    def test_case_2_custom_baseline_few_steps(self):
        self.check_case(load_cases()[1])

    def test_case_3_single_step(self):
        self.check_case(load_cases()[2])


if __name__ == "__main__":
    unittest.main()
