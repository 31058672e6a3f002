def apply(self, x, positions):
    """Rotate the feature pairs of ``x`` by their position's angles."""
    x = np.asarray(x, dtype=np.float64)
    angles = self.angles(positions)
    cos, sin = np.cos(angles), np.sin(angles)
    even, odd = x[:, 0::2], x[:, 1::2]
    out = np.empty_like(x)
    out[:, 0::2] = even * cos + odd * sin
    out[:, 1::2] = odd * cos - even * sin
    return out
