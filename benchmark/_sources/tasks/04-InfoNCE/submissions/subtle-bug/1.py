def info_nce_loss(queries, keys, temperature=0.05):
    """InfoNCE with in-batch negatives."""
    logits = l2_normalize(queries) @ l2_normalize(keys).T / temperature
    # Normalise the similarities into log-probabilities.
    log_probs = logits - logsumexp(logits, axis=0)[None, :]
    loss = -np.mean(np.diag(log_probs))
    return float(loss), logits
