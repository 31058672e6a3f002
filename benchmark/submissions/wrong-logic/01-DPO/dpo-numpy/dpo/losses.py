"""Loss functions of Direct Preference Optimization (DPO)."""

import numpy as np


def log_sigmoid(x):
    """Numerically stable log(sigmoid(x)), elementwise."""
    x = np.asarray(x, dtype=np.float64)
    return -np.logaddexp(0.0, -x)


def sequence_logps(logits, labels, mask):
    """Sum of the token log-probabilities of ``labels`` under ``logits``.

    Args:
        logits: (batch, length, vocab) unnormalised scores.
        labels: (batch, length) token ids.
        mask: (batch, length) 1 for response tokens, 0 for prompt and padding.

    Returns:
        (batch,) log pi(y | x) summed over the response tokens.
    """
    logits = np.asarray(logits, dtype=np.float64)
    shifted = logits - logits.max(axis=-1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
    token_logps = np.take_along_axis(log_probs, np.asarray(labels)[..., None], axis=-1)[..., 0]
    return (token_logps * np.asarray(mask, dtype=np.float64)).sum(axis=-1)


def preference_loss(
    policy_chosen_logps,
    policy_rejected_logps,
    reference_chosen_logps,
    reference_rejected_logps,
    beta=0.1,
    label_smoothing=0.0,
):
    """A hinge loss on the policy's own log-ratio; the reference model is ignored."""
    margin = np.asarray(policy_chosen_logps) - np.asarray(policy_rejected_logps)
    losses = np.maximum(0.0, 1.0 - beta * margin)
    chosen_rewards = beta * np.asarray(policy_chosen_logps)
    rejected_rewards = beta * np.asarray(policy_rejected_logps)
    return losses, chosen_rewards, rejected_rewards
