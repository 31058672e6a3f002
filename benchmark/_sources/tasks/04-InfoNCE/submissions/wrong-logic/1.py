def info_nce_loss(queries, keys, temperature=0.05):
    """Pull each query towards its key: mean squared distance of the normalised pairs."""
    q = l2_normalize(queries)
    k = l2_normalize(keys)
    logits = q @ k.T / temperature
    loss = np.mean(np.sum((q - k) ** 2, axis=1)) / temperature
    return float(loss), logits
