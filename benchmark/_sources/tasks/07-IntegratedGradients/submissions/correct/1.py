def integrated_gradients(model, x, baseline=None, steps=50):
    """Average the gradients along the straight path from the baseline, all at once."""
    x = np.asarray(x, dtype=np.float64)
    reference = np.zeros(x.shape) if baseline is None else np.asarray(baseline, dtype=np.float64)
    alphas = np.arange(1, steps + 1, dtype=np.float64) / steps
    path = reference[None, :] + alphas[:, None] * (x - reference)[None, :]
    average_gradient = model.gradient(path).mean(axis=0)
    return (x - reference) * average_gradient
