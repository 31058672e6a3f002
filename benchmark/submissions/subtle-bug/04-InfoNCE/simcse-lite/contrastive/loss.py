"""The InfoNCE contrastive objective with in-batch negatives."""

import numpy as np


def l2_normalize(x, eps=1e-12):
    """Rows of ``x`` scaled to unit Euclidean norm."""
    x = np.asarray(x, dtype=np.float64)
    return x / np.maximum(np.linalg.norm(x, axis=-1, keepdims=True), eps)


def logsumexp(x, axis=-1):
    """Numerically stable log(sum(exp(x))) along ``axis``."""
    x = np.asarray(x, dtype=np.float64)
    top = x.max(axis=axis, keepdims=True)
    return (top + np.log(np.exp(x - top).sum(axis=axis, keepdims=True))).squeeze(axis)


def info_nce_loss(queries, keys, temperature=0.05):
    """InfoNCE with in-batch negatives."""
    logits = l2_normalize(queries) @ l2_normalize(keys).T / temperature
    # Normalise the similarities into log-probabilities.
    log_probs = logits - logsumexp(logits, axis=0)[None, :]
    loss = -np.mean(np.diag(log_probs))
    return float(loss), logits
