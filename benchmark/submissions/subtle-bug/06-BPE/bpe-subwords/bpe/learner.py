"""Learning BPE merge operations from a vocabulary of words split into symbols.

A vocabulary maps a word, written as a tuple of symbols ending in the end-of-word
marker ``</w>``, to its corpus frequency, e.g. ``{("l", "o", "w", "</w>"): 5}``.
"""

from collections import Counter

END_OF_WORD = "</w>"


def word_to_symbols(word):
    """The initial segmentation of a word: its characters plus the end-of-word marker."""
    return tuple(word) + (END_OF_WORD,)


def build_vocab(corpus):
    """Symbol-tuple vocabulary of a whitespace-tokenised corpus."""
    return dict(Counter(word_to_symbols(w) for w in corpus.split()))


def get_pair_counts(vocab):
    """Frequency of every adjacent symbol pair, weighted by word frequency (Eq. 1)."""
    pairs = Counter()
    for symbols, freq in vocab.items():
        for left, right in zip(symbols, symbols[1:]):
            pairs[left, right] += freq
    return pairs


def merge_pair(pair, vocab):
    """Apply one merge operation to every word of the vocabulary."""
    left, right = pair
    merged_symbol = left + right
    new_vocab = {}
    for symbols, freq in vocab.items():
        out = []
        i = 0
        while i < len(symbols):
            if i + 1 < len(symbols) and symbols[i] == left and symbols[i + 1] == right:
                out.append(merged_symbol)
                i += 2
            else:
                out.append(symbols[i])
                i += 1
        new_vocab[tuple(out)] = freq
    return new_vocab


def learn_bpe(vocab, num_merges):
    """The list of merges learned greedily; ties go to the lexicographically smallest pair."""
    merges = []
    for _ in range(num_merges):
        pairs = get_pair_counts(vocab)
        if not pairs:
            break
        best = min(pairs, key=lambda p: (-pairs[p], p))
        merges.append(best)
        vocab = merge_pair(best, vocab)
    return merges


def segment(word, merges):
    """Segment a new word by applying the learned merges in order."""
    vocab = {word_to_symbols(word): 1}
    for pair in merges:
        vocab = merge_pair(pair, vocab)
    return next(iter(vocab))


if __name__ == "__main__":
    corpus = "low " * 5 + "lower " * 2 + "newest " * 6 + "widest " * 3
    learned = learn_bpe(build_vocab(corpus), 10)
    print("merges:", learned)
    print("lowest ->", segment("lowest", learned))
