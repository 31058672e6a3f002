"""Task 03-TopP: nucleus (top-p) filtering (Decoding & Search Strategies)."""

INFO = {
    "instance_id": 3,
    "paper_name": "Sampling from the Nucleus: Truncating the Unreliable Tail in Text Generation",
    "paper_url": "",
    "year": 2026,
    "repo_url": "",
    "repo_folder_name": "nucleus-sampling",
    "implementations": [
        {
            "instruction": (
                "Implement the `top_p_filter` function in sampling/filters.py following "
                "Section 2 of paper.pdf (Eq. 1-3). Given the logits of one next-token "
                "distribution, return the renormalised distribution over the nucleus V(p) "
                "(zeros elsewhere), honouring `temperature` and `min_tokens_to_keep`; tokens "
                "of equal probability are ranked by index."
            ),
            "category": "Decoding & Search Strategies",
            "goal_file": "sampling/filters.py",
            "goal_function": "top_p_filter",
            "class_name": "",
            "retrieval_context": ["sampling/generate.py"],
            "unit_test_file": "unit_test/unit_test_1.py",
        }
    ],
}

PAPER = {
    "title": "Sampling from the Nucleus: Truncating the Unreliable Tail in Text Generation",
    "authors": "lmr-author sample benchmark",
    "abstract": (
        "Greedy and beam decoding make text bland and repetitive, while pure sampling "
        "draws from an unreliable low-probability tail. Nucleus (top-p) sampling truncates "
        "the tail adaptively: at every step it samples from the smallest set of tokens "
        "whose probability mass reaches p. We restate the method and reproduce it."
    ),
    "sections": [
        (
            "1 Background",
            """
            A language model gives, at step t, a distribution over the vocabulary V:

            $$ P(x | x_{1:t−1}) = softmax(u / T),   (1)

            where u are the logits and T > 0 is a temperature (T < 1 sharpens the
            distribution, T > 1 flattens it). Top-k sampling keeps the k most probable
            tokens, but a fixed k is too small for flat distributions and too large for
            peaked ones.
            """,
        ),
        (
            "2 Nucleus sampling",
            """
            Sort the tokens by decreasing probability (ties broken by token index). The
            top-p vocabulary V(p) ⊆ V is the smallest prefix of this ranking such that

            $$ Σ_{x ∈ V(p)} P(x | x_{1:t−1}) ≥ p.   (2)

            That is, the token whose probability makes the cumulative mass reach p is
            included. Let p' be that mass. The distribution is rescaled over the nucleus:

            $$ P'(x | x_{1:t−1}) = P(x | x_{1:t−1}) / p' if x ∈ V(p), and 0 otherwise.   (3)

            The next token is drawn from P'. For robustness, implementations keep at least
            min_tokens_to_keep tokens (1 by default) regardless of p; with p = 1 the full
            distribution is recovered.
            """,
        ),
        (
            "3 Experiments",
            """
            On a toy bigram model (sampling/generate.py) p = 0.9 removes the long tail of
            each row while keeping the flat rows diverse, whereas top-k with a single k
            either truncates flat rows or keeps the tail of peaked ones.
            """,
        ),
    ],
}
