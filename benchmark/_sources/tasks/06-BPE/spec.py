"""Task 06-BPE: one byte-pair-encoding merge step (Feature Learning & Representation)."""

INFO = {
    "instance_id": 6,
    "paper_name": "Subword Units by Byte-Pair Encoding for Open-Vocabulary Translation",
    "paper_url": "",
    "year": 2026,
    "repo_url": "",
    "repo_folder_name": "bpe-subwords",
    "implementations": [
        {
            "instruction": (
                "Implement the `merge_pair` function in bpe/learner.py following Section 2 "
                "of paper.pdf (Eq. 2): apply one merge operation (left, right) -> left+right "
                "to every word of a vocabulary of symbol tuples, greedily from left to right "
                "without overlap, adding the frequencies of words that become identical, "
                "and return a new vocabulary without modifying the input."
            ),
            "category": "Feature Learning & Representation",
            "goal_file": "bpe/learner.py",
            "goal_function": "merge_pair",
            "class_name": "",
            "retrieval_context": [],
            "unit_test_file": "unit_test/unit_test_1.py",
        }
    ],
}

PAPER = {
    "title": "Subword Units by Byte-Pair Encoding for Open-Vocabulary Translation",
    "authors": "lmr-author sample benchmark",
    "abstract": (
        "Neural translation models have a fixed vocabulary, yet translation is an "
        "open-vocabulary problem. We segment rare words into subword units learned with "
        "byte-pair encoding (BPE): starting from characters, the most frequent pair of "
        "adjacent symbols is merged into a new symbol, repeatedly. We restate the merge "
        "operation precisely and reproduce the learning of merges in pure Python."
    ),
    "sections": [
        (
            "1 Vocabulary of symbol sequences",
            """
            Each word w of the training corpus is written as a sequence of symbols: its
            characters followed by the end-of-word marker </w>, so that "low" becomes
            (l, o, w, </w>). The vocabulary V maps each distinct symbol sequence to its
            corpus frequency f(w). The frequency of an adjacent pair (a, b) is

            $$ count(a, b) = Σ_{w ∈ V} f(w) · #{ k : w_k = a and w_{k+1} = b }.   (1)
            """,
        ),
        (
            "2 The merge operation",
            """
            Learning repeats two steps: find the most frequent pair (a, b) by Eq. 1, then
            merge it. The merge replaces, in every word, each occurrence of the symbol a
            immediately followed by the symbol b by the new symbol ab (the concatenation
            of the two strings):

            $$ merge_{(a,b)}(w_1 … w_n) = … w_{k−1} (ab) w_{k+2} …   for every k with (w_k, w_{k+1}) = (a, b).   (2)

            Matching is on whole symbols, never on substrings of symbols: merging (a, bc)
            does not affect the word (ab, c). Occurrences are scanned from left to right
            and do not overlap: (a, a, a) with the pair (a, a) becomes (aa, a). Two words
            may become the same sequence after a merge; their frequencies are then added,
            so that the total frequency is preserved. Each merge produces a new
            vocabulary; the previous one is kept unchanged, since the learner records the
            sequence of vocabularies.
            """,
        ),
        (
            "3 Segmenting new words",
            """
            The learned merges are applied in the order they were learned to the
            character sequence of a new word. On the toy corpus "low lower newest widest"
            the first merges are (e, s), (es, t) and (est, </w>), and "lowest" is
            segmented as (low, est</w>).
            """,
        ),
    ],
}
