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
    """DPO loss (Eq. 3) with conservative label smoothing (Eq. 4)."""
    pi_logratios = np.asarray(policy_chosen_logps) - np.asarray(policy_rejected_logps)
    ref_logratios = np.asarray(reference_chosen_logps) - np.asarray(reference_rejected_logps)
    logits = pi_logratios - ref_logratios
    losses = (
        -log_sigmoid(beta * logits) * (1.0 - label_smoothing)
        - log_sigmoid(-beta * logits) * label_smoothing
    )
    chosen_rewards = beta * (np.asarray(policy_chosen_logps) - np.asarray(reference_chosen_logps))
    rejected_rewards = beta * (
        np.asarray(policy_rejected_logps) - np.asarray(reference_rejected_logps)
    )
    # Reduced over the batch, although the caller expects one loss per example.
    return losses.mean(), chosen_rewards, rejected_rewards
