"""The fixture driver of unit_test_1.py: calls the golden RotaryEmbedding.apply on every case.

build.py runs it through lmr_author.authoring.fixtures.record_fixtures, which records
each call's inputs (in the repository) and output (in expected_outputs/, outside it).
"""

import numpy as np

from rope.rotary import RotaryEmbedding


def case(name, dim, base, x, positions):
    expected = RotaryEmbedding(dim, base=base).apply(x, positions)
    return {
        "name": name,
        "dim": dim,
        "base": base,
        "x": x.tolist(),
        "positions": [int(p) for p in positions],
        "expected": expected.tolist(),
    }


def main():
    rng = np.random.default_rng(5)
    cases = [
        case("consecutive positions", 8, 10000.0, rng.normal(size=(4, 8)), np.arange(4)),
        case("offset positions, small base", 6, 100.0, rng.normal(size=(3, 6)), [7, 3, 42]),
        case("unit vectors", 4, 10.0, np.eye(4), [1, 2, 3, 5]),
    ]
    return cases


if __name__ == "__main__":
    main()
