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
