"""The fixture driver of unit_test_1.py: calls the golden merge_pair on every case.

build.py runs it through lmr_author.authoring.fixtures.record_fixtures, which records
each call's inputs (in the repository) and output (in expected_outputs/, outside it).
"""

from bpe.learner import build_vocab, learn_bpe, merge_pair


def entries(vocab):
    return [[list(symbols), freq] for symbols, freq in sorted(vocab.items())]


def step(pair, vocab):
    return {
        "pair": list(pair),
        "vocab": entries(vocab),
        "expected": entries(merge_pair(pair, vocab)),
    }


def main():
    corpus = "low " * 5 + "lower " * 2 + "newest " * 6 + "widest " * 3
    vocab = build_vocab(corpus)
    sequence = []
    for pair in learn_bpe(vocab, 6):
        sequence.append(step(pair, vocab))
        vocab = merge_pair(pair, vocab)
    repeated = {
        ("a", "a", "a", "</w>"): 4,
        ("a", "a", "a", "a", "</w>"): 2,
        ("b", "a", "a"): 3,
        ("ab", "c", "</w>"): 1,
        ("a", "bc", "</w>"): 5,
    }
    collide = {
        ("n", "e", "w", "</w>"): 3,
        ("ne", "w", "</w>"): 2,
        ("n", "ew", "</w>"): 7,
        ("t", "o", "</w>"): 1,
    }
    cases = [
        {"name": "merge sequence", "steps": sequence},
        {
            "name": "repeated and boundary pairs",
            "steps": [
                step(("a", "a"), repeated),
                step(("a", "</w>"), repeated),
                step(("a", "bc"), repeated),
            ],
        },
        {
            "name": "words that collide",
            "steps": [step(("n", "e"), collide), step(("e", "w"), collide)],
        },
    ]
    return cases


if __name__ == "__main__":
    main()
