"""Run an evaluation with the local backend in its own process (for the SIGINT tests).

Usage: python sigint_driver.py BENCHMARK SUBMISSION OUTPUT WORKERS
Exit code: 130 when interrupted, else 0 (like ``lmr-author eval``).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from evaltasks import LocalBackend

from lmr_author.eval_loop import Submission, run_evaluation


def main() -> int:
    bench, sub, out, workers = sys.argv[1:5]
    results = run_evaluation(
        Path(bench),
        [Submission(Path(sub))],
        Path(out),
        workers=int(workers),
        backend=LocalBackend(),
        on_interrupt=lambda: print("interrupt received", flush=True),
    )
    return 130 if results.interrupted else 0


if __name__ == "__main__":
    raise SystemExit(main())
