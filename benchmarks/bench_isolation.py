"""What it costs to run the candidate in a process of its own: isolated vs in-process runs.

    python benchmarks/bench_isolation.py BENCH [--base-image IMG] [--task NAME]...
        [--rounds N] [--timeout S] [--runtime docker|podman|apptainer]

For every task of BENCH (the sample benchmark, or LMR-Bench's ``benchmark/`` with a
stand-in base image), on warm images: the golden and the masked goal files of each
implementation are run through `run_tests` isolated (the candidate in a container of its
own, called through the proxy) and in the test's process (as before isolation), the two
interleaved round after round so that both see the same load. Prints per task the
median wall time of one round (golden + masked) each way, their ratio, whether the
golden code crossed (isolated) and the verdicts, then the totals and the machine's load
before and after.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

from lmr_author.domain.benchmark import load_benchmark
from lmr_author.images.task_images import ensure_image
from lmr_author.runtime.engine import RUNTIMES, use_runtime
from lmr_author.sandbox.limits import Limits
from lmr_author.sandbox.run_spec import RunSpec
from lmr_author.sandbox.runner import run_tests


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("benchmark", type=Path, metavar="BENCH")
    parser.add_argument("--base-image", metavar="IMG")
    parser.add_argument("--task", action="append", default=[], metavar="NAME")
    parser.add_argument("--rounds", type=int, default=3, metavar="N")
    parser.add_argument("--timeout", type=float, default=600.0, metavar="S")
    parser.add_argument("--runtime", choices=RUNTIMES, default="docker")
    args = parser.parse_args()
    use_runtime(args.runtime)
    loaded = load_benchmark(args.benchmark, args.task or None)
    limits = Limits(timeout_s=args.timeout)
    load_before = os.getloadavg()
    print(
        f"{'task':<26} {'isolated s':>10} {'in-process s':>12} {'ratio':>6}  "
        "golden crossed  verdicts golden/masked (isolated | in-process)"
    )
    totals = {True: 0.0, False: 0.0}
    for task in loaded.tasks:
        image = ensure_image(task, base_image=args.base_image)
        times: dict[bool, list[float]] = {True: [], False: []}
        verdicts: dict[bool, str] = {}
        crossed = "yes"
        for _ in range(args.rounds):
            for isolated in (True, False):
                started = time.monotonic()
                seen = []
                for impl in task.implementations:
                    for source in (impl.golden_path.read_bytes(), None):
                        spec = RunSpec(task, impl, source, image, limits, isolated=isolated)
                        run = run_tests(spec)
                        seen.append(run.verdict)
                        if isolated and source is not None and run.crossings:
                            crossed = "no: " + run.crossings[0][:60]
                times[isolated].append(time.monotonic() - started)
                verdicts[isolated] = "/".join(seen)
        one = {mode: statistics.median(values) for mode, values in times.items()}
        totals[True] += one[True]
        totals[False] += one[False]
        print(
            f"{task.name:<26} {one[True]:>10.1f} {one[False]:>12.1f} "
            f"{one[True] / one[False]:>6.2f}  {crossed:<14}  "
            f"{verdicts[True]} | {verdicts[False]}"
        )
    print(
        f"{'total':<26} {totals[True]:>10.1f} {totals[False]:>12.1f} "
        f"{totals[True] / max(totals[False], 1e-9):>6.2f}"
    )
    load_after = os.getloadavg()
    print(
        f"load average (1, 5, 15 min) before {load_before[0]:.1f} {load_before[1]:.1f} "
        f"{load_before[2]:.1f}, after {load_after[0]:.1f} {load_after[1]:.1f} "
        f"{load_after[2]:.1f}; {os.cpu_count()} CPUs; {args.rounds} rounds, medians"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
