def modified_precision(candidate, references, n):
    """Clipped n-gram counts of one candidate against its references."""
    candidate_ngrams = {}
    for start in range(len(candidate) - n + 1):
        gram = tuple(candidate[start : start + n])
        candidate_ngrams[gram] = candidate_ngrams.get(gram, 0) + 1
    total = sum(candidate_ngrams.values())
    matched = 0
    for gram, count in candidate_ngrams.items():
        best = 0
        for reference in references:
            best = max(best, extract_ngrams(reference, n).get(gram, 0))
        matched += min(count, best)
    return matched, total if total > 0 else 1
