def apply(self, x, positions):
    """Add sinusoidal position encodings to ``x``."""
    x = np.asarray(x, dtype=np.float64)
    angles = self.angles(positions)
    encoding = np.empty_like(x)
    encoding[:, 0::2] = np.sin(angles)
    encoding[:, 1::2] = np.cos(angles)
    return x + encoding
