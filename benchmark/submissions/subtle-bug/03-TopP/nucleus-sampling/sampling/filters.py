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
