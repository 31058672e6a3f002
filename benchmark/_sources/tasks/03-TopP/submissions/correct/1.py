def top_p_filter(logits, top_p, min_tokens_to_keep=1, temperature=1.0):
    """Keep the smallest prefix of most likely tokens with mass >= top_p."""
    probs = softmax(logits, temperature)
    ranked = sorted(range(probs.size), key=lambda index: (-probs[index], index))
    kept = []
    mass = 0.0
    for index in ranked:
        if mass >= top_p and len(kept) >= min_tokens_to_keep:
            break
        kept.append(index)
        mass += probs[index]
    result = np.zeros(probs.size)
    result[kept] = probs[kept]
    return result / result.sum()
