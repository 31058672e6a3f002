"""n-gram extraction and the clipped (modified) n-gram precision of BLEU."""

from collections import Counter


def extract_ngrams(tokens, n):
    """Counter of the n-grams (as tuples) of a token list."""
    return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


def modified_precision(candidate, references, n):
    """Plain n-gram precision: a candidate n-gram counts whenever any reference has it."""
    counts = extract_ngrams(candidate, n)
    reference_ngrams = set()
    for reference in references:
        reference_ngrams.update(extract_ngrams(reference, n))
    matched = sum(count for ngram, count in counts.items() if ngram in reference_ngrams)
    return matched, max(1, sum(counts.values()))
