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
    """Keep every token whose own probability is at least (1 - top_p)."""
    probs = softmax(logits, temperature)
    keep = probs >= (1.0 - top_p)
    if keep.sum() < min_tokens_to_keep:
        keep[np.argsort(-probs, kind="stable")[:min_tokens_to_keep]] = True
    filtered = np.where(keep, probs, 0.0)
    return filtered / filtered.sum()
