"""The fixture driver of unit_test_1.py: calls the golden integrated_gradients on every case.

build.py runs it through lmr_author.authoring.fixtures.record_fixtures, which records
each call's inputs (in the repository) and output (in expected_outputs/, outside it).
"""

import numpy as np

from attribution.methods import integrated_gradients
from attribution.model import TanhClassifier


def case(name, model, x, baseline, steps):
    expected = integrated_gradients(model, x, baseline, steps=steps)
    return {
        "name": name,
        "model": {
            "weights": model.weights.tolist(),
            "bias": model.bias.tolist(),
            "readout": model.readout.tolist(),
            "offset": model.offset,
        },
        "x": x.tolist(),
        "baseline": None if baseline is None else baseline.tolist(),
        "steps": steps,
        "expected": expected.tolist(),
    }


def main():
    rng = np.random.default_rng(3)
    first = TanhClassifier.random(6, hidden=5, seed=4)
    second = TanhClassifier.random(4, hidden=3, seed=5)
    second.offset = 0.7
    cases = [
        case("zero baseline", first, rng.normal(size=6) * 2.0, None, 20),
        case("custom baseline, few steps", second, rng.normal(size=4), rng.normal(size=4), 4),
        case("single step", first, rng.normal(size=6), None, 1),
    ]
    return cases


if __name__ == "__main__":
    main()
