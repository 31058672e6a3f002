"""The fixture driver of unit_test_1.py: calls the golden top_p_filter on every case.

build.py runs it through lmr_author.authoring.fixtures.record_fixtures, which records
each call's inputs (in the repository) and output (in expected_outputs/, outside it).
"""

import numpy as np

from sampling.filters import top_p_filter


def call(logits, top_p, min_tokens_to_keep=1, temperature=1.0):
    expected = top_p_filter(np.array(logits), top_p, min_tokens_to_keep, temperature)
    return {
        "logits": [float(x) for x in logits],
        "top_p": top_p,
        "min_tokens_to_keep": min_tokens_to_keep,
        "temperature": temperature,
        "expected": expected.tolist(),
    }


def main():
    # Probabilities [0.5, 0.25, 0.125, ...] as log-probabilities: cumulative masses are
    # far from the thresholds used below, so rounding never decides the nucleus.
    peaked = np.log([0.05, 0.5, 0.02, 0.25, 0.08, 0.1])
    flat = np.log([0.2, 0.1, 0.2, 0.2, 0.1, 0.2])
    rng = np.random.default_rng(7)
    wide = rng.normal(scale=3.0, size=12)
    cases = [
        {
            "name": "peaked distribution",
            "calls": [call(peaked, 0.6), call(peaked, 0.7), call(peaked, 0.9), call(peaked, 1.0)],
        },
        {
            "name": "flat distribution and ties",
            "calls": [call(flat, 0.3), call(flat, 0.5), call(flat, 0.85)],
        },
        {
            "name": "min tokens and temperature",
            "calls": [
                call(peaked, 0.3, min_tokens_to_keep=3),
                call(wide, 0.8, temperature=2.0),
                call(wide, 0.8, temperature=0.5),
            ],
        },
    ]
    return cases


if __name__ == "__main__":
    main()
