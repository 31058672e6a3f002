def top_p_filter(logits, top_p, min_tokens_to_keep=1, temperature=1.0):
    """Keep every token whose own probability is at least (1 - top_p)."""
    probs = softmax(logits, temperature)
    keep = probs >= (1.0 - top_p)
    if keep.sum() < min_tokens_to_keep:
        keep[np.argsort(-probs, kind="stable")[:min_tokens_to_keep]] = True
    filtered = np.where(keep, probs, 0.0)
    return filtered / filtered.sum()
