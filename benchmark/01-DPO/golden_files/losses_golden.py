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
    """Compute the DPO loss for a batch of policy and reference model log probabilities.

    Args:
        policy_chosen_logps: (batch,) log pi_theta(y_w | x) of the chosen responses.
        policy_rejected_logps: (batch,) log pi_theta(y_l | x) of the rejected responses.
        reference_chosen_logps: (batch,) log pi_ref(y_w | x).
        reference_rejected_logps: (batch,) log pi_ref(y_l | x).
        beta: temperature of the implicit reward (Eq. 2); typically 0.1 to 0.5.
        label_smoothing: probability epsilon that a preference label is flipped
            (conservative DPO, Eq. 4); 0 gives the original DPO loss (Eq. 3).

    Returns:
        A tuple (losses, chosen_rewards, rejected_rewards), each of shape (batch,):
        the per-example DPO losses and the implicit rewards of Eq. 2 of the chosen and
        rejected responses.
    """
    policy_chosen_logps = np.asarray(policy_chosen_logps, dtype=np.float64)
    policy_rejected_logps = np.asarray(policy_rejected_logps, dtype=np.float64)
    reference_chosen_logps = np.asarray(reference_chosen_logps, dtype=np.float64)
    reference_rejected_logps = np.asarray(reference_rejected_logps, dtype=np.float64)

    pi_logratios = policy_chosen_logps - policy_rejected_logps
    ref_logratios = reference_chosen_logps - reference_rejected_logps
    logits = pi_logratios - ref_logratios

    losses = (
        -log_sigmoid(beta * logits) * (1.0 - label_smoothing)
        - log_sigmoid(-beta * logits) * label_smoothing
    )
    chosen_rewards = beta * (policy_chosen_logps - reference_chosen_logps)
    rejected_rewards = beta * (policy_rejected_logps - reference_rejected_logps)
    return losses, chosen_rewards, rejected_rewards
