"""The fixture driver of unit_test_1.py: calls the golden info_nce_loss on every case.

build.py runs it through lmr_author.authoring.fixtures.record_fixtures, which records
each call's inputs (in the repository) and output (in expected_outputs/, outside it).
"""

import numpy as np

from contrastive.loss import info_nce_loss


def case(name, queries, keys, temperature):
    loss, logits = info_nce_loss(queries, keys, temperature)
    return {
        "name": name,
        "queries": queries.tolist(),
        "keys": keys.tolist(),
        "temperature": temperature,
        "expected_loss": loss,
        "expected_logits": logits.tolist(),
    }


def main():
    rng = np.random.default_rng(11)
    q1 = rng.normal(size=(4, 8))
    k1 = q1 + 0.3 * rng.normal(size=(4, 8))
    q2 = rng.normal(size=(5, 6)) * np.array([[1.0], [5.0], [0.2], [3.0], [10.0]])
    k2 = rng.normal(size=(5, 6)) * 4.0
    q3 = rng.normal(size=(3, 4))
    k3 = rng.normal(size=(3, 4))
    cases = [
        case("random batch", q1, k1, 0.1),
        case("unnormalised inputs", q2, k2, 0.5),
        case("low temperature", q3, k3, 0.02),
    ]
    return cases


if __name__ == "__main__":
    main()
