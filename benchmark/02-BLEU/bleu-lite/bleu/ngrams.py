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
    # TODO: Implement this function
    return clipped, denominator
