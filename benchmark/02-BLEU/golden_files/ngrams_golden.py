"""n-gram extraction and the clipped (modified) n-gram precision of BLEU."""

from collections import Counter


def extract_ngrams(tokens, n):
    """Counter of the n-grams (as tuples) of a token list."""
    return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


def modified_precision(candidate, references, n):
    """Clipped n-gram counts of one candidate sentence against its references (Eq. 1).

    Args:
        candidate: list of tokens of the candidate translation.
        references: list of token lists, the reference translations.
        n: the n-gram order.

    Returns:
        A tuple (numerator, denominator) of ints: the sum over the candidate's n-grams of
        their counts clipped by the largest count in any single reference, and the total
        number of n-grams in the candidate (at least 1, so that the ratio is defined).
    """
    counts = extract_ngrams(candidate, n)
    max_reference_counts = Counter()
    for reference in references:
        for ngram, count in extract_ngrams(reference, n).items():
            max_reference_counts[ngram] = max(max_reference_counts[ngram], count)
    clipped = sum(min(count, max_reference_counts[ngram]) for ngram, count in counts.items())
    denominator = max(1, sum(counts.values()))
    return clipped, denominator
