"""Attribution methods: which input features does the prediction F(x) rely on?"""

import numpy as np


def saliency(model, x):
    """Plain gradient saliency: |dF/dx| at the input."""
    return np.abs(model.gradient(x))


def gradient_times_input(model, x):
    """The gradient at x multiplied elementwise by x."""
    return model.gradient(x) * np.asarray(x, dtype=np.float64)


def integrated_gradients(model, x, baseline=None, steps=50):
    """Average the gradients along the straight path from the baseline, all at once."""
    x = np.asarray(x, dtype=np.float64)
    reference = np.zeros(x.shape) if baseline is None else np.asarray(baseline, dtype=np.float64)
    alphas = np.arange(1, steps + 1, dtype=np.float64) / steps
    path = reference[None, :] + alphas[:, None] * (x - reference)[None, :]
    average_gradient = model.gradient(path).mean(axis=0)
    return (x - reference) * average_gradient
