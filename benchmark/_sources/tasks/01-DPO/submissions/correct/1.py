def preference_loss(
    policy_chosen_logps,
    policy_rejected_logps,
    reference_chosen_logps,
    reference_rejected_logps,
    beta=0.1,
    label_smoothing=0.0,
):
    """DPO loss (Eq. 3) with conservative label smoothing (Eq. 4)."""
    chosen = np.asarray(policy_chosen_logps, dtype=np.float64) - np.asarray(
        reference_chosen_logps, dtype=np.float64
    )
    rejected = np.asarray(policy_rejected_logps, dtype=np.float64) - np.asarray(
        reference_rejected_logps, dtype=np.float64
    )
    chosen_rewards = beta * chosen
    rejected_rewards = beta * rejected
    margin = chosen_rewards - rejected_rewards
    # -log sigmoid(z) == softplus(-z) == logaddexp(0, -z)
    losses = (1.0 - label_smoothing) * np.logaddexp(0.0, -margin) + label_smoothing * np.logaddexp(
        0.0, margin
    )
    return losses, chosen_rewards, rejected_rewards
