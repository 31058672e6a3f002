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
    """Nucleus (top-p) filtering of one next-token distribution (Eq. 2-3 of the paper).

    Args:
        logits: 1-D array of unnormalised next-token scores, shape (vocab,).
        top_p: the nucleus mass p in (0, 1].
        min_tokens_to_keep: the nucleus always holds at least this many tokens.
        temperature: applied to the logits before the softmax.

    Returns:
        A 1-D float array of shape (vocab,): the probabilities of the tokens in the
        nucleus V(p), renormalised to sum to 1, and 0.0 for every other token. V(p) is
        the smallest set of most probable tokens whose cumulative probability is at
        least p; tokens of equal probability are taken in index order.
    """
    probs = softmax(logits, temperature)
    order = np.argsort(-probs, kind="stable")
    cumulative = np.cumsum(probs[order])
    cutoff = int(np.searchsorted(cumulative, top_p, side="left")) + 1
    cutoff = min(max(cutoff, min_tokens_to_keep), probs.size)
    keep = order[:cutoff]
    filtered = np.zeros_like(probs)
    filtered[keep] = probs[keep]
    return filtered / filtered.sum()
