"""n-gram extraction and the clipped (modified) n-gram precision of BLEU."""

from collections import Counter


def extract_ngrams(tokens, n):
    """Counter of the n-grams (as tuples) of a token list."""
    return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


def modified_precision(candidate, references, n):
    """Clipped n-gram counts of one candidate against its references."""
    counts = extract_ngrams(candidate, n)
    max_reference_counts = Counter()
    for reference in references:
        for ngram, count in extract_ngrams(reference, n).items():
            max_reference_counts[ngram] = max(max_reference_counts[ngram], count)
    clipped = sum(min(count, max_reference_counts[ngram]) for ngram, count in counts.items())
    # Number of n-grams in the candidate.
    denominator = max(1, len(candidate) - n)
    return clipped, denominator
