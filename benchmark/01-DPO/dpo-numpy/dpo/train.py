"""A toy DPO run: a tabular policy over a handful of canned responses."""

import numpy as np

from dpo.losses import preference_loss


def train(steps=200, beta=0.1, lr=0.5, seed=0):
    """Fit a softmax policy over 6 responses to 4 preference pairs; return the losses."""
    rng = np.random.default_rng(seed)
    n_responses = 6
    pairs = np.array([[0, 3], [1, 4], [2, 5], [0, 5]])  # (chosen, rejected)
    reference = rng.normal(size=n_responses)
    theta = reference.copy()
    history = []
    for _ in range(steps):
        log_probs = theta - np.log(np.exp(theta).sum())
        ref_log_probs = reference - np.log(np.exp(reference).sum())
        losses, _, _ = preference_loss(
            log_probs[pairs[:, 0]],
            log_probs[pairs[:, 1]],
            ref_log_probs[pairs[:, 0]],
            ref_log_probs[pairs[:, 1]],
            beta=beta,
        )
        history.append(float(losses.mean()))
        # d loss / d theta by central differences: the toy has only 6 parameters.
        grad = np.zeros_like(theta)
        for i in range(n_responses):
            step = np.zeros_like(theta)
            step[i] = 1e-5
            plus = _mean_loss(theta + step, reference, pairs, beta)
            minus = _mean_loss(theta - step, reference, pairs, beta)
            grad[i] = (plus - minus) / 2e-5
        theta -= lr * grad
    return history


def _mean_loss(theta, reference, pairs, beta):
    log_probs = theta - np.log(np.exp(theta).sum())
    ref_log_probs = reference - np.log(np.exp(reference).sum())
    losses, _, _ = preference_loss(
        log_probs[pairs[:, 0]],
        log_probs[pairs[:, 1]],
        ref_log_probs[pairs[:, 0]],
        ref_log_probs[pairs[:, 1]],
        beta=beta,
    )
    return float(losses.mean())


if __name__ == "__main__":
    curve = train()
    print(f"loss: {curve[0]:.4f} -> {curve[-1]:.4f}")
