"""Unit tests of contrastive.loss.info_nce_loss against recorded reference outputs.

Run from the repository folder: python unit_test/unit_test_1.py
"""

import json
import unittest
from pathlib import Path

import numpy as np

from contrastive.loss import info_nce_loss

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "unit_test_1.json"


def load_cases():
    return json.loads(FIXTURES.read_text(encoding="utf-8"))["cases"]


class TestInfoNCE(unittest.TestCase):
    def check_case(self, case):
        loss, logits = info_nce_loss(
            np.array(case["queries"]), np.array(case["keys"]), temperature=case["temperature"]
        )
        self.assertTrue(np.ndim(loss) == 0, f"{case['name']}: the loss must be a scalar")
        np.testing.assert_allclose(
            float(loss), case["expected_loss"], rtol=1e-7, err_msg=f"{case['name']}: loss"
        )
        np.testing.assert_allclose(
            np.asarray(logits, dtype=np.float64),
            np.array(case["expected_logits"]),
            rtol=1e-7,
            atol=1e-9,
            err_msg=f"{case['name']}: logits",
        )

    def test_case_1_random_batch(self):
        self.check_case(load_cases()[0])

    def test_case_2_unnormalised_inputs(self):
        self.check_case(load_cases()[1])

    def test_case_3_low_temperature(self):
        self.check_case(load_cases()[2])


if __name__ == "__main__":
    unittest.main()
