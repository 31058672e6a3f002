def integrated_gradients(model, x, baseline=None, steps=50):
    """Gradient at the input times the difference from the baseline."""
    x = np.asarray(x, dtype=np.float64)
    baseline = np.zeros_like(x) if baseline is None else np.asarray(baseline, dtype=np.float64)
    return (x - baseline) * model.gradient(x[None, :])[0]
