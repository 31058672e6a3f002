"""The fixture driver of unit_test_1.py and unit_test_2.py: calls the golden code on every case.

build.py runs it through lmr_author.authoring.fixtures.record_fixtures, which records
each call's inputs (in the repository) and output (in expected_outputs/, outside it).
"""

from bleu.ngrams import modified_precision
from bleu.score import brevity_penalty


def tok(text):
    return text.split()


def precision_cases():
    raw = [
        (
            "clipping",
            "the the the the the the the",
            ["the cat is on the mat", "there is a cat on the mat"],
        ),
        (
            "two references",
            "it is a guide to action which ensures that the military always obeys the "
            "commands of the party",
            [
                "it is a guide to action that ensures that the military will forever heed "
                "party commands",
                "it is the guiding principle which guarantees the military forces always "
                "being under the command of the party",
            ],
        ),
        ("short candidate", "of the the", ["the party of the people", "of the state"]),
    ]
    cases = []
    for name, candidate, references in raw:
        candidate, references = tok(candidate), [tok(r) for r in references]
        orders = [
            {"n": n, "expected": list(modified_precision(candidate, references, n))}
            for n in range(1, 5)
        ]
        cases.append(
            {"name": name, "candidate": candidate, "references": references, "orders": orders}
        )
    return cases


def brevity_cases():
    groups = [
        (
            "short corpus",
            [([6, 8], [[7], [9]]), ([3], [[5, 9]]), ([10, 2], [[12, 11], [3]])],
        ),
        (
            "closest reference and ties",
            [
                ([4], [[2, 6]]),
                ([5, 7], [[3, 7], [6, 8]]),
                ([10], [[8, 12, 13]]),
                ([10, 6], [[4, 11], [2, 7]]),  # the closest reference is not the shortest
            ],
        ),
        (
            "long and empty corpus",
            [([12, 9], [[10, 14], [8]]), ([], []), ([0, 0], [[3], [4]])],
        ),
    ]
    cases = []
    for name, corpora in groups:
        cases.append(
            {
                "name": name,
                "corpora": [
                    {
                        "candidate_lengths": cands,
                        "reference_lengths": refs,
                        "expected": brevity_penalty(cands, refs),
                    }
                    for cands, refs in corpora
                ],
            }
        )
    return cases


def main():
    precision_cases()
    brevity_cases()


if __name__ == "__main__":
    main()
