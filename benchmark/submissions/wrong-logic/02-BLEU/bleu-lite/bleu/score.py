"""Corpus-level BLEU: geometric mean of clipped precisions times the brevity penalty."""

import math

from bleu.ngrams import modified_precision


def brevity_penalty(candidate_lengths, reference_lengths):
    """Length ratio of the candidate corpus to its shortest references, capped at 1."""
    c = sum(candidate_lengths)
    r = sum(min(lengths) for lengths in reference_lengths)
    if r == 0:
        return 1.0
    return min(1.0, c / r)


def corpus_bleu(candidates, references, max_n=4):
    """Corpus BLEU (Eq. 3) of tokenised candidates against their tokenised references.

    Args:
        candidates: list of candidate sentences, each a list of tokens.
        references: list (one entry per candidate) of lists of reference token lists.
        max_n: the highest n-gram order N; the weights are uniform, w_n = 1 / N.

    Returns:
        The BLEU score as a float in [0, 1]; 0.0 when any order has no matching n-gram.
    """
    numerators = [0] * max_n
    denominators = [0] * max_n
    for candidate, refs in zip(candidates, references):
        for n in range(1, max_n + 1):
            clipped, total = modified_precision(candidate, refs, n)
            numerators[n - 1] += clipped
            denominators[n - 1] += total
    if min(numerators) == 0:
        return 0.0
    log_precision = sum(math.log(num / den) for num, den in zip(numerators, denominators)) / max_n
    penalty = brevity_penalty(
        [len(candidate) for candidate in candidates],
        [[len(ref) for ref in refs] for refs in references],
    )
    return penalty * math.exp(log_precision)
