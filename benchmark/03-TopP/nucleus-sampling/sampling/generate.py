"""Generate from a toy bigram model with nucleus sampling."""

import numpy as np

from sampling.filters import top_p_filter

VOCAB = ["<s>", "the", "cat", "dog", "sat", "ran", "on", "mat", "away", "."]


def bigram_logits(rng):
    """Random but fixed bigram logits; row i scores the token after VOCAB[i]."""
    return rng.normal(scale=2.0, size=(len(VOCAB), len(VOCAB)))


def generate(length=8, top_p=0.9, seed=0):
    rng = np.random.default_rng(seed)
    table = bigram_logits(rng)
    token = 0
    words = []
    for _ in range(length):
        probs = top_p_filter(table[token], top_p)
        token = int(rng.choice(len(VOCAB), p=probs))
        words.append(VOCAB[token])
    return " ".join(words)


if __name__ == "__main__":
    print(generate())
