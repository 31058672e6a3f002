"""Attribution methods: which input features does the prediction F(x) rely on?"""

import numpy as np


def saliency(model, x):
    """Plain gradient saliency: |dF/dx| at the input."""
    return np.abs(model.gradient(x))


def gradient_times_input(model, x):
    """The gradient at x multiplied elementwise by x."""
    return model.gradient(x) * np.asarray(x, dtype=np.float64)


def integrated_gradients(model, x, baseline=None, steps=50):
    """Integrated gradients with a Riemann sum over the straight-line path."""
    x = np.asarray(x, dtype=np.float64)
    baseline = np.zeros_like(x) if baseline is None else np.asarray(baseline, dtype=np.float64)
    total = np.zeros_like(x)
    for k in range(steps):
        point = baseline + (k / steps) * (x - baseline)
        total += model.gradient(point[None, :])[0]
    return (x - baseline) * total / steps
