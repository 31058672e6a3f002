"""Record the fixtures of unit_test_1.py and unit_test_2.py from the golden code."""

import json
from pathlib import Path

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
            [([4], [[2, 6]]), ([5, 7], [[3, 7], [6, 8]]), ([10], [[8, 12, 13]])],
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
    folder = Path("unit_test/fixtures")
    folder.mkdir(parents=True, exist_ok=True)
    for number, cases in ((1, precision_cases()), (2, brevity_cases())):
        (folder / f"unit_test_{number}.json").write_text(
            json.dumps({"cases": cases}, indent=1) + "\n", encoding="utf-8"
        )


if __name__ == "__main__":
    main()
