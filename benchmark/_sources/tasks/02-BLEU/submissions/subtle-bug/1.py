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
