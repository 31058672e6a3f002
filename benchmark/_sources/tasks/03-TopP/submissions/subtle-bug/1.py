def top_p_filter(logits, top_p, min_tokens_to_keep=1, temperature=1.0):
    """Nucleus filtering: keep the most likely tokens up to a cumulative mass of top_p."""
    probs = softmax(logits, temperature)
    order = np.argsort(-probs, kind="stable")
    cumulative = np.cumsum(probs[order])
    # Tokens whose cumulative probability stays within the nucleus mass.
    cutoff = int(np.sum(cumulative < top_p))
    cutoff = min(max(cutoff, min_tokens_to_keep), probs.size)
    keep = order[:cutoff]
    filtered = np.zeros_like(probs)
    filtered[keep] = probs[keep]
    return filtered / filtered.sum()
