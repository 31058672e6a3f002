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
    """Cross-entropy of each query against its own key among all in-batch keys."""
    q = np.asarray(queries, dtype=np.float64)
    k = np.asarray(keys, dtype=np.float64)
    q = q / np.linalg.norm(q, axis=1, keepdims=True)
    k = k / np.linalg.norm(k, axis=1, keepdims=True)
    logits = np.einsum("id,jd->ij", q, k) / temperature
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_denominator = np.log(np.exp(shifted).sum(axis=1))
    per_query = log_denominator - np.diagonal(shifted)
    return float(per_query.mean()), logits
