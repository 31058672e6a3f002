"""A tiny differentiable classifier over input embeddings: tanh layer, sigmoid output."""

import numpy as np


class TanhClassifier:
    """F(x) = sigmoid(v . tanh(W x + b) + c) for a flat input vector x.

    ``predict`` and ``gradient`` accept one input (dim,) or a batch (n, dim).
    """

    def __init__(self, weights, bias, readout, offset):
        self.weights = np.asarray(weights, dtype=np.float64)  # (hidden, dim)
        self.bias = np.asarray(bias, dtype=np.float64)  # (hidden,)
        self.readout = np.asarray(readout, dtype=np.float64)  # (hidden,)
        self.offset = float(offset)

    @classmethod
    def random(cls, dim, hidden, seed=0):
        rng = np.random.default_rng(seed)
        return cls(
            rng.normal(size=(hidden, dim)) / np.sqrt(dim),
            rng.normal(size=hidden) * 0.1,
            rng.normal(size=hidden),
            0.0,
        )

    def _hidden(self, x):
        return np.tanh(np.asarray(x, dtype=np.float64) @ self.weights.T + self.bias)

    def predict(self, x):
        """The output probability F(x)."""
        z = self._hidden(x) @ self.readout + self.offset
        return 1.0 / (1.0 + np.exp(-z))

    def gradient(self, x):
        """dF/dx, with the shape of x."""
        hidden = self._hidden(x)
        prob = self.predict(x)
        dz_dh = self.readout * (1.0 - hidden**2)  # (..., hidden)
        dz_dx = dz_dh @ self.weights  # (..., dim)
        return (
            (prob * (1.0 - prob))[..., None] * dz_dx
            if np.ndim(x) > 1
            else (prob * (1.0 - prob) * dz_dx)
        )
