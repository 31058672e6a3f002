"""Filters that turn next-token logits into a truncated sampling distribution."""

import numpy as np


def softmax(logits, temperature=1.0):
    """Softmax of a 1-D array of logits at the given temperature."""
    scaled = np.asarray(logits, dtype=np.float64) / temperature
    scaled = scaled - scaled.max()
    weights = np.exp(scaled)
    return weights / weights.sum()


def top_k_filter(logits, k):
    """Probabilities restricted to the k most likely tokens, renormalised."""
    probs = softmax(logits)
    keep = np.argsort(-probs, kind="stable")[:k]
    filtered = np.zeros_like(probs)
    filtered[keep] = probs[keep]
    return filtered / filtered.sum()


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
