def modified_precision(candidate, references, n):
    """Plain n-gram precision: a candidate n-gram counts whenever any reference has it."""
    counts = extract_ngrams(candidate, n)
    reference_ngrams = set()
    for reference in references:
        reference_ngrams.update(extract_ngrams(reference, n))
    matched = sum(count for ngram, count in counts.items() if ngram in reference_ngrams)
    return matched, max(1, sum(counts.values()))
