"""Task 05-RoPE: rotary position embedding, a method of a class (Neural Network Architectures)."""

INFO = {
    "instance_id": 5,
    "paper_name": "Rotary Position Embedding: Relative Positions by Rotating Queries and Keys",
    "paper_url": "",
    "year": 2026,
    "repo_url": "",
    "repo_folder_name": "rope-attention",
    "implementations": [
        {
            "instruction": (
                "Implement the `apply` method of the `RotaryEmbedding` class in rope/rotary.py "
                "following Section 2 of paper.pdf (Eq. 2-3): rotate every pair of features "
                "(x[2i], x[2i+1]) of each row of x by the angle m * theta_i, where m is the "
                "row's position. Use the frequencies in `self.inv_freq`."
            ),
            "category": "Neural Network Architectures",
            "goal_file": "rope/rotary.py",
            "goal_function": "apply",
            "class_name": "RotaryEmbedding",
            "retrieval_context": ["rope/attention.py"],
            "unit_test_file": "unit_test/unit_test_1.py",
        }
    ],
}

PAPER = {
    "title": "Rotary Position Embedding: Relative Positions by Rotating Queries and Keys",
    "authors": "lmr-author sample benchmark",
    "abstract": (
        "Self-attention is invariant to the order of its inputs, so position must be "
        "injected. Rotary position embedding (RoPE) multiplies queries and keys by a "
        "position-dependent rotation, which makes their dot product depend only on the "
        "relative distance of the two positions. We restate the construction and verify "
        "the relative-position property in a NumPy reproduction."
    ),
    "sections": [
        (
            "1 Motivation",
            """
            Absolute position encodings are added to the token embeddings. We instead seek
            functions f_q, f_k of a vector and its position such that the attention score
            depends on the positions m and n only through m − n:

            $$ ⟨ f_q(x_m, m), f_k(x_n, n) ⟩ = g(x_m, x_n, m − n).   (1)
            """,
        ),
        (
            "2 Rotary position embedding",
            """
            Split a d-dimensional vector (d even) into d/2 consecutive pairs
            (x_{2i}, x_{2i+1}), i = 0, ..., d/2 − 1 (indices from 0). Each pair gets its
            own frequency

            $$ θ_i = base^{−2i/d},   base = 10000 by default.   (2)

            At position m the pair is rotated counter-clockwise by the angle m θ_i:

            $$ x'_{2i} = x_{2i} cos(m θ_i) − x_{2i+1} sin(m θ_i),   x'_{2i+1} = x_{2i} sin(m θ_i) + x_{2i+1} cos(m θ_i).   (3)

            Equivalently, reading the pair as the complex number x_{2i} + j x_{2i+1},
            RoPE multiplies it by e^{j m θ_i}. Because rotations compose, the score of a
            rotated query at m and a rotated key at n involves only the angle (m − n) θ_i,
            which gives Eq. 1. RoPE is applied to the queries and keys of every head, not
            to the values, and it preserves vector norms.
            """,
        ),
        (
            "3 Verification",
            """
            rope/attention.py implements a causal attention head with RoPE. Shifting every
            position by a constant (e.g. 100) leaves its output unchanged up to rounding,
            as Eq. 1 predicts.
            """,
        ),
    ],
}
