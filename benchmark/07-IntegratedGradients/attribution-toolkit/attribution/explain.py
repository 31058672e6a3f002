"""Explain a toy sentiment prediction word by word."""

import numpy as np

from attribution.methods import integrated_gradients
from attribution.model import TanhClassifier

WORDS = ["the", "movie", "was", "not", "good"]


def main():
    dim = 3
    rng = np.random.default_rng(1)
    embeddings = rng.normal(size=(len(WORDS), dim))
    model = TanhClassifier.random(dim * len(WORDS), hidden=8, seed=2)
    x = embeddings.reshape(-1)
    attributions = integrated_gradients(model, x, steps=200).reshape(len(WORDS), dim).sum(axis=1)
    gap = model.predict(x) - model.predict(np.zeros_like(x))
    for word, score in zip(WORDS, attributions):
        print(f"{word:>6} {score:+.4f}")
    print(f"sum {attributions.sum():+.4f} vs F(x) - F(x') {gap:+.4f} (completeness)")


if __name__ == "__main__":
    main()
