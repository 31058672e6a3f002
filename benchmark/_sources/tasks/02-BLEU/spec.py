"""Task 02-BLEU: clipped n-gram precision and the brevity penalty (Evaluation Metrics)."""

INFO = {
    "instance_id": 2,
    "paper_name": "BLEU Revisited: Clipped n-gram Precision for Corpus-level Evaluation",
    "paper_url": "",
    "year": 2026,
    "repo_url": "",
    "repo_folder_name": "bleu-lite",
    "implementations": [
        {
            "instruction": (
                "Implement the `modified_precision` function in bleu/ngrams.py following "
                "Eq. 1 of paper.pdf. For one tokenised candidate and its tokenised references, "
                "return the tuple (numerator, denominator): the candidate's n-gram counts "
                "clipped by the maximum count of that n-gram in any single reference, summed, "
                "and the total number of candidate n-grams (at least 1)."
            ),
            "category": "Evaluation Metrics",
            "goal_file": "bleu/ngrams.py",
            "goal_function": "modified_precision",
            "class_name": "",
            "retrieval_context": ["bleu/score.py"],
            "unit_test_file": "unit_test/unit_test_1.py",
        },
        {
            "instruction": (
                "Implement the `brevity_penalty` function in bleu/score.py following Section 2 "
                "of paper.pdf (Eq. 2). It receives the length of every candidate sentence and, "
                "for every candidate, the lengths of its references, computes the corpus "
                "length c and the effective reference length r (closest reference length per "
                "sentence, the shorter one on ties) and returns the brevity penalty as a float."
            ),
            "category": "Evaluation Metrics",
            "goal_file": "bleu/score.py",
            "goal_function": "brevity_penalty",
            "class_name": "",
            "retrieval_context": ["bleu/ngrams.py"],
            "unit_test_file": "unit_test/unit_test_2.py",
        },
    ],
}

PAPER = {
    "title": "BLEU Revisited: Clipped n-gram Precision for Corpus-level Evaluation",
    "authors": "lmr-author sample benchmark",
    "abstract": (
        "BLEU scores a machine translation by its n-gram overlap with human references. "
        "We restate its two ingredients, the clipped (modified) n-gram precision and the "
        "brevity penalty, and how they are combined at the level of a whole test corpus, "
        "and release a dependency-free reproduction."
    ),
    "sections": [
        (
            "1 Clipped n-gram precision",
            """
            Plain precision rewards degenerate candidates: "the the the the the the the"
            has unigram precision 7/7 against a reference containing "the". BLEU
            therefore clips the count of every candidate n-gram g by the largest number of
            times g occurs in any single reference:

            $$ Count_clip(g) = min( Count_cand(g), max_{R ∈ refs} Count_R(g) ).

            For a candidate sentence C the modified precision of order n is a ratio whose
            numerator and denominator are kept separately, because the corpus score sums
            them before dividing:

            $$ p_n(C) = Σ_{g ∈ ngrams_n(C)} Count_clip(g) / Σ_{g ∈ ngrams_n(C)} Count_cand(g).   (1)

            The denominator is the number of n-grams of C, i.e. len(C) − n + 1; it is
            taken to be at least 1 so that candidates shorter than n are defined (with a
            numerator of 0). For the example above the clipped unigram precision is 2/7.
            """,
        ),
        (
            "2 Brevity penalty",
            """
            Precision alone favours short candidates. Let c be the total length of the
            candidate corpus and r the effective reference length: the sum, over
            sentences, of the reference length closest to the candidate's length (the
            shorter one on ties). The brevity penalty is

            $$ BP = 1 if c > r,   BP = exp(1 − r / c) if 0 < c ≤ r,   BP = 0 if c = 0.   (2)
            """,
        ),
        (
            "3 Corpus BLEU",
            """
            The corpus score combines the orders n = 1..N with uniform weights w_n = 1/N
            (N = 4 by default). The precision of each order is computed at corpus level:
            the clipped counts of all sentences are summed, and divided by the sum of
            their n-gram totals; sentence-level precisions are not averaged.

            $$ P_n = Σ_C numerator_n(C) / Σ_C denominator_n(C)

            $$ BLEU = BP · exp( Σ_{n=1..N} w_n log P_n ).   (3)

            If some P_n is zero the geometric mean is zero and BLEU is 0. The score lies
            in [0, 1]; tables usually report 100 · BLEU.
            """,
        ),
    ],
}
