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
    """InfoNCE loss of a batch of (query, positive key) pairs (Eq. 2 of the paper).

    Args:
        queries: (batch, dim) embeddings h_i of the anchors.
        keys: (batch, dim) embeddings h_i^+ of the positives; for query i every key
            j != i serves as an in-batch negative.
        temperature: the temperature tau of Eq. 1.

    Returns:
        A tuple (loss, logits): the mean over the batch of the per-query losses
        (a float) and the (batch, batch) matrix of scaled cosine similarities
        sim(h_i, h_j^+) / tau.
    """
    logits = l2_normalize(queries) @ l2_normalize(keys).T / temperature
    log_probs = logits - logsumexp(logits, axis=1)[:, None]
    loss = -np.mean(np.diag(log_probs))
    return float(loss), logits
