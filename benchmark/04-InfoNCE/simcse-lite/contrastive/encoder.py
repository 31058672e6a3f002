"""A bag-of-embeddings sentence encoder with dropout noise, trained with InfoNCE."""

import numpy as np

from contrastive.loss import info_nce_loss

SENTENCES = [
    "a man is playing a guitar",
    "a woman is slicing an onion",
    "two dogs run on the beach",
    "the stock market fell today",
    "a child reads a book",
    "rain is expected tomorrow",
]


class BagEncoder:
    """Mean of word vectors followed by dropout: two passes give two 'views'."""

    def __init__(self, dim=16, dropout=0.1, seed=0):
        self.rng = np.random.default_rng(seed)
        words = sorted({w for s in SENTENCES for w in s.split()})
        self.index = {w: i for i, w in enumerate(words)}
        self.table = self.rng.normal(size=(len(words), dim))
        self.dropout = dropout

    def encode(self, sentences, train=True):
        vectors = np.stack(
            [self.table[[self.index[w] for w in s.split()]].mean(axis=0) for s in sentences]
        )
        if train:
            keep = self.rng.random(vectors.shape) >= self.dropout
            vectors = vectors * keep / (1.0 - self.dropout)
        return vectors


if __name__ == "__main__":
    encoder = BagEncoder()
    loss, _ = info_nce_loss(encoder.encode(SENTENCES), encoder.encode(SENTENCES))
    print(f"InfoNCE of two dropout views: {loss:.4f}")
