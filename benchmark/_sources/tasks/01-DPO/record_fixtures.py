"""The fixture driver of unit_test_1.py from the golden preference_loss.

build.py runs it through lmr_author.authoring.fixtures.record_fixtures (from the
unmasked repository folder), which records each call of the goal function: its inputs
into the repository, its output into expected_outputs/, outside the repository.
"""

import numpy as np

from dpo.losses import preference_loss


def case(name, rng, batch, scale, beta, label_smoothing):
    inputs = {
        "policy_chosen_logps": (rng.normal(size=batch) * scale - 20).tolist(),
        "policy_rejected_logps": (rng.normal(size=batch) * scale - 22).tolist(),
        "reference_chosen_logps": (rng.normal(size=batch) * scale - 21).tolist(),
        "reference_rejected_logps": (rng.normal(size=batch) * scale - 21).tolist(),
        "beta": beta,
        "label_smoothing": label_smoothing,
    }
    losses, chosen, rejected = preference_loss(
        np.array(inputs["policy_chosen_logps"]),
        np.array(inputs["policy_rejected_logps"]),
        np.array(inputs["reference_chosen_logps"]),
        np.array(inputs["reference_rejected_logps"]),
        beta=beta,
        label_smoothing=label_smoothing,
    )
    expected = {
        "losses": losses.tolist(),
        "chosen_rewards": chosen.tolist(),
        "rejected_rewards": rejected.tolist(),
    }
    return {"name": name, "inputs": inputs, "expected": expected}


def main():
    rng = np.random.default_rng(20260101)
    cases = [
        case("random batch", rng, batch=5, scale=3.0, beta=0.1, label_smoothing=0.0),
        case("large margins", rng, batch=4, scale=40.0, beta=0.5, label_smoothing=0.0),
        case("label smoothing", rng, batch=6, scale=5.0, beta=0.2, label_smoothing=0.2),
    ]
    return cases


if __name__ == "__main__":
    main()
