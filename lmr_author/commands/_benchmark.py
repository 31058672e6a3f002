"""Loading the benchmark a command was given: broken tasks listed first, then skipped."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from lmr_author.benchmark import Benchmark, load_benchmark, skipped_lines


def load_for_command(path: str | Path, names: Sequence[str] | None = None) -> Benchmark:
    """The tasks of ``path`` (narrowed to ``names`` before loading); the ones that cannot
    load are printed on stderr, one line each, before anything else."""
    benchmark = load_benchmark(path, list(names) if names else None)
    print_skipped(benchmark)
    return benchmark


def print_skipped(benchmark: Benchmark) -> None:
    for line in skipped_lines(benchmark.broken, benchmark.notes):
        print(line, file=sys.stderr)
