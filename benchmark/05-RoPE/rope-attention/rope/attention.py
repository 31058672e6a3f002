"""One self-attention head with rotary position embedding on queries and keys."""

import numpy as np

from rope.rotary import RotaryEmbedding


def attention(x, w_q, w_k, w_v, rope, positions=None):
    """Causal softmax attention over the rows of ``x`` with RoPE applied to q and k."""
    seq_len = x.shape[0]
    if positions is None:
        positions = np.arange(seq_len)
    q = rope.apply(x @ w_q, positions)
    k = rope.apply(x @ w_k, positions)
    v = x @ w_v
    scores = q @ k.T / np.sqrt(q.shape[1])
    scores = np.where(np.tril(np.ones((seq_len, seq_len), dtype=bool)), scores, -np.inf)
    scores = scores - scores.max(axis=1, keepdims=True)
    weights = np.exp(scores)
    weights /= weights.sum(axis=1, keepdims=True)
    return weights @ v


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    dim = 8
    x = rng.normal(size=(5, dim))
    w = [rng.normal(size=(dim, dim)) / np.sqrt(dim) for _ in range(3)]
    rope = RotaryEmbedding(dim)
    shifted = attention(x, *w, rope, positions=np.arange(5) + 100)
    print("relative positions only:", np.allclose(attention(x, *w, rope), shifted))
