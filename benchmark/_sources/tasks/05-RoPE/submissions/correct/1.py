def apply(self, x, positions):
    """Rotate each feature pair as a complex number: (x_2i + j x_2i+1) * e^{j m theta_i}."""
    x = np.asarray(x, dtype=np.float64)
    pairs = x.reshape(x.shape[0], -1, 2)
    as_complex = pairs[..., 0] + 1j * pairs[..., 1]
    rotation = np.exp(1j * np.asarray(positions, dtype=np.float64)[:, None] * self.inv_freq)
    rotated = as_complex * rotation
    return np.stack([rotated.real, rotated.imag], axis=-1).reshape(x.shape)
