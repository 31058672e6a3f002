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
