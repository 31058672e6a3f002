"""Loading the benchmark a command was given: broken tasks listed first, then skipped."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lmr_author.domain.benchmark import Benchmark, load_benchmark, skipped_lines


def load_for_command(
    path: str | Path, names: Sequence[str] | None = None, *, runnable: bool = True
) -> Benchmark:
    """The tasks of ``path`` (narrowed to ``names`` before loading); the ones that cannot
    load are printed on stderr, one line each, before anything else."""
    benchmark = load_benchmark(path, list(names) if names else None, runnable=runnable)
    print_skipped(benchmark)
    return benchmark


def with_skipped(data: dict[str, Any], benchmark: Benchmark) -> dict[str, Any]:
    """``data`` (a command's --json output) with the skipped tasks, when there are any."""
    if benchmark.broken:
        data["skipped_tasks"] = [item.to_json() for item in benchmark.broken]
    return data


def print_skipped(benchmark: Benchmark) -> None:
    for line in skipped_lines(benchmark.broken, benchmark.notes):
        print(line, file=sys.stderr)
