"""Score a file of hypotheses against one or more reference files (one sentence a line)."""

import sys

from bleu.score import corpus_bleu


def main(argv):
    hypothesis_path, *reference_paths = argv
    with open(hypothesis_path, encoding="utf-8") as handle:
        hypotheses = [line.split() for line in handle]
    reference_sets = []
    for path in reference_paths:
        with open(path, encoding="utf-8") as handle:
            reference_sets.append([line.split() for line in handle])
    references = [list(refs) for refs in zip(*reference_sets)]
    print(f"BLEU = {100 * corpus_bleu(hypotheses, references):.2f}")


if __name__ == "__main__":
    main(sys.argv[1:])
