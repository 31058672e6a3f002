"""Attribution methods: which input features does the prediction F(x) rely on?"""

import numpy as np


def saliency(model, x):
    """Plain gradient saliency: |dF/dx| at the input."""
    return np.abs(model.gradient(x))


def gradient_times_input(model, x):
    """The gradient at x multiplied elementwise by x."""
    return model.gradient(x) * np.asarray(x, dtype=np.float64)


def integrated_gradients(model, x, baseline=None, steps=50):
    """Integrated gradients of ``model`` at ``x`` (Eq. 2-3 of the paper).

    Args:
        model: has ``gradient(points)`` returning dF/dx for a (n, dim) batch of points.
        x: (dim,) input to explain.
        baseline: (dim,) reference input x'; all zeros when None.
        steps: the number m of steps of the Riemann approximation.

    Returns:
        (dim,) array of attributions: (x - x') times the average of the gradients at
        the m points x' + (k/m)(x - x'), k = 1..m (right Riemann sum).
    """
    x = np.asarray(x, dtype=np.float64)
    baseline = np.zeros_like(x) if baseline is None else np.asarray(baseline, dtype=np.float64)
    total = np.zeros_like(x)
    for k in range(1, steps + 1):
        point = baseline + (k / steps) * (x - baseline)
        total += model.gradient(point[None, :])[0]
    return (x - baseline) * total / steps
