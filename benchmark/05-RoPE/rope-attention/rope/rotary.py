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
        """Rotate the feature pairs of ``x`` by their position's angles (Eq. 3).

        Args:
            x: (seq_len, dim) query or key vectors, one row per position.
            positions: (seq_len,) integer positions m of the rows.

        Returns:
            (seq_len, dim) array: for each row and each i, the pair of features
            (x[2i], x[2i+1]) rotated by the angle positions[row] * theta_i.
        """
        # TODO: Implement this function
        return out
