def brevity_penalty(candidate_lengths, reference_lengths):
    """Corpus brevity penalty with the closest-reference effective length."""
    c = sum(candidate_lengths)
    r = 0
    for length, lengths in zip(candidate_lengths, reference_lengths):
        # Closest reference length.
        r += min(lengths, key=lambda ref_length: (abs(ref_length - length), -ref_length))
    if c == 0:
        return 0.0
    if c > r:
        return 1.0
    return math.exp(1.0 - r / c)
