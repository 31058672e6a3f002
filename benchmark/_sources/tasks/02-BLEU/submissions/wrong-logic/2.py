def brevity_penalty(candidate_lengths, reference_lengths):
    """Length ratio of the candidate corpus to its shortest references, capped at 1."""
    c = sum(candidate_lengths)
    r = sum(min(lengths) for lengths in reference_lengths)
    if r == 0:
        return 1.0
    return min(1.0, c / r)
