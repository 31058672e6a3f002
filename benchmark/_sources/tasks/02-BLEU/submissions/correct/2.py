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
