"""Unit tests of dpo.losses.preference_loss against outputs recorded from the reference code.

Run from the repository folder: python unit_test/unit_test_1.py
"""

import json
import unittest
from pathlib import Path

import numpy as np

from dpo.losses import preference_loss

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "unit_test_1.json"


def load_cases():
    return json.loads(FIXTURES.read_text(encoding="utf-8"))["cases"]


class TestPreferenceLoss(unittest.TestCase):
    def check_case(self, case):
        inputs, expected = case["inputs"], case["expected"]
        losses, chosen_rewards, rejected_rewards = preference_loss(
            np.array(inputs["policy_chosen_logps"]),
            np.array(inputs["policy_rejected_logps"]),
            np.array(inputs["reference_chosen_logps"]),
            np.array(inputs["reference_rejected_logps"]),
            beta=inputs["beta"],
            label_smoothing=inputs["label_smoothing"],
        )
        for name, got in (
            ("losses", losses),
            ("chosen_rewards", chosen_rewards),
            ("rejected_rewards", rejected_rewards),
        ):
            got = np.asarray(got, dtype=np.float64)
            want = np.array(expected[name])
            self.assertEqual(got.shape, want.shape, f"{case['name']}: shape of {name}")
            np.testing.assert_allclose(
                got, want, rtol=1e-6, atol=1e-9, err_msg=f"{case['name']}: {name}"
            )

    def test_case_1_random_batch(self):
        self.check_case(load_cases()[0])

    def test_case_2_large_margins(self):
        self.check_case(load_cases()[1])

    def test_case_3_label_smoothing(self):
        self.check_case(load_cases()[2])


if __name__ == "__main__":
    unittest.main()
