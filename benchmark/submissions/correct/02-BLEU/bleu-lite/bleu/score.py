"""Corpus-level BLEU: geometric mean of clipped precisions times the brevity penalty."""

import math

from bleu.ngrams import modified_precision


def brevity_penalty(candidate_lengths, reference_lengths):
    """Corpus brevity penalty with the closest-reference effective length."""
    total_candidate = sum(candidate_lengths)
    effective_reference = 0
    for length, lengths in zip(candidate_lengths, reference_lengths):
        best = None
        for ref_length in sorted(lengths):
            if best is None or abs(ref_length - length) < abs(best - length):
                best = ref_length
        effective_reference += best
    if total_candidate <= 0:
        return 0.0
    return min(1.0, math.exp(1.0 - effective_reference / total_candidate))


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
