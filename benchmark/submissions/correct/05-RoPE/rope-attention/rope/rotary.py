"""Rotary position embedding: rotate pairs of features by position-dependent angles."""

import numpy as np


class RotaryEmbedding:
    """RoPE for feature vectors of an even dimension ``dim``.

    The frequencies theta_i = base^(-2i/dim), i = 0 .. dim/2 - 1, are fixed at
    construction (Eq. 2 of the paper).
    """

    def __init__(self, dim, base=10000.0):
        if dim % 2:
            raise ValueError(f"RoPE needs an even dimension, got {dim}")
        self.dim = dim
        self.base = base
        self.inv_freq = 1.0 / (base ** (np.arange(0, dim, 2, dtype=np.float64) / dim))

    def angles(self, positions):
        """(len(positions), dim/2) matrix of the angles m * theta_i."""
        positions = np.asarray(positions, dtype=np.float64)
        return np.outer(positions, self.inv_freq)

    def apply(self, x, positions):
        """Rotate each feature pair as a complex number: (x_2i + j x_2i+1) * e^{j m theta_i}."""
        x = np.asarray(x, dtype=np.float64)
        pairs = x.reshape(x.shape[0], -1, 2)
        as_complex = pairs[..., 0] + 1j * pairs[..., 1]
        rotation = np.exp(1j * np.asarray(positions, dtype=np.float64)[:, None] * self.inv_freq)
        rotated = as_complex * rotation
        return np.stack([rotated.real, rotated.imag], axis=-1).reshape(x.shape)
