"""Task 04-InfoNCE: the InfoNCE contrastive objective (Feature Learning & Representation)."""

INFO = {
    "instance_id": 4,
    "paper_name": "Contrastive Sentence Embeddings from Dropout Noise with In-batch Negatives",
    "paper_url": "",
    "year": 2026,
    "repo_url": "",
    "repo_folder_name": "simcse-lite",
    "implementations": [
        {
            "instruction": (
                "Implement the `info_nce_loss` function in contrastive/loss.py following "
                "Section 2 of paper.pdf (Eq. 1-3). Given the query embeddings and their "
                "positive key embeddings, return (loss, logits): the mean InfoNCE loss over "
                "the batch, using every other key of the batch as a negative, and the "
                "(batch, batch) matrix of cosine similarities divided by the temperature."
            ),
            "category": "Feature Learning & Representation",
            "goal_file": "contrastive/loss.py",
            "goal_function": "info_nce_loss",
            "class_name": "",
            "retrieval_context": ["contrastive/encoder.py"],
            "unit_test_file": "unit_test/unit_test_1.py",
        }
    ],
}

PAPER = {
    "title": "Contrastive Sentence Embeddings from Dropout Noise with In-batch Negatives",
    "authors": "lmr-author sample benchmark",
    "abstract": (
        "We learn sentence embeddings without labels by encoding every sentence twice with "
        "independent dropout masks and training the encoder to identify the second view "
        "of a sentence among the views of all other sentences of the batch. The training "
        "signal is the InfoNCE objective over cosine similarities with a temperature."
    ),
    "sections": [
        (
            "1 Views from dropout",
            """
            Given a batch of N sentences, the encoder f is applied twice with independent
            dropout masks, giving query embeddings h_i = f(x_i, z_i) and positive key
            embeddings h_i^+ = f(x_i, z_i'). For the i-th query, the key h_i^+ is the
            positive and the N − 1 keys h_j^+ (j ≠ i) of the same batch are negatives.
            """,
        ),
        (
            "2 Training objective",
            """
            Similarity is the cosine similarity, i.e. the dot product of the two vectors
            after each is scaled to unit L2 norm, divided by a temperature τ:

            $$ s_ij = cos(h_i, h_j^+) / τ = h_iᵀ h_j^+ / ( ||h_i|| · ||h_j^+|| · τ ).   (1)

            The loss of the i-th query is the cross-entropy of identifying its own key
            among the N keys of the batch: a softmax over the row s_i· of the
            similarity matrix (over keys j, not over queries):

            $$ ℓ_i = − log ( exp(s_ii) / Σ_{j=1..N} exp(s_ij) ).   (2)

            The batch loss is the mean over queries:

            $$ L = (1/N) Σ_{i=1..N} ℓ_i.   (3)

            The matrix S = (s_ij), the logits of this N-way classification, is returned
            with the loss for monitoring (e.g. the accuracy of argmax_j s_ij = i).
            """,
        ),
        (
            "3 Implementation notes",
            """
            The log-sum-exp of Eq. 2 is computed stably by subtracting the row maximum.
            Small temperatures (τ = 0.05) make the softmax sharp; the inputs need not be
            normalised, since Eq. 1 normalises them.
            """,
        ),
    ],
}
