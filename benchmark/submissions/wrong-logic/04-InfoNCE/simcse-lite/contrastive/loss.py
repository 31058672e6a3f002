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
    """Pull each query towards its key: mean squared distance of the normalised pairs."""
    q = l2_normalize(queries)
    k = l2_normalize(keys)
    logits = q @ k.T / temperature
    loss = np.mean(np.sum((q - k) ** 2, axis=1)) / temperature
    return float(loss), logits
