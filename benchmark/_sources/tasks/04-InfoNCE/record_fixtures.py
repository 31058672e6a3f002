"""Record the fixtures of unit_test_1.py from the golden info_nce_loss."""

import json
from pathlib import Path

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
    out = Path("unit_test/fixtures/unit_test_1.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"cases": cases}, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
