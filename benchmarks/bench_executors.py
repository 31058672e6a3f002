"""Benchmark of ``eval --executor slurm`` against ``--executor local``: overhead per run.

Scores the bundled sample benchmark (--task may narrow it) for its three systems with
``--force`` (every run executes), once per executor and ``--repeat`` times (alternated,
so that a change of load falls on both; medians), with the same number of runs at once
(``--workers N`` locally, ``--max-in-flight N`` for Slurm's one array of N workers;
default 1: runs one after another, so the difference is per-run overhead, not
parallelism), and prints the wall times, the extra seconds per run Slurm costs (sbatch,
scheduling, the worker's start on the node, polling), the machine's load average before
and after, and the cluster CPUs other jobs held (a busy node is the case the target is
for). Images are built before timing.
Needs a Slurm cluster (.ci/slurm-setup) and a Docker engine. Run from the repository
root:

    python benchmarks/bench_executors.py [--task 02-BLEU --task 03-TopP] [--workers 1]
        [--repeat 3]

Exit code 1 when the executors disagree on a verdict or the overhead exceeds --target.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BENCHMARK = ROOT / "benchmark"
SYSTEMS = ("correct", "subtle-bug", "wrong-logic")


def _eval(out: Path, tasks: list[str], workers: int, *extra: str) -> tuple[float, dict[str, Any]]:
    argv = [sys.executable, "-m", "lmr_author", "eval", str(BENCHMARK), "--output", str(out)]
    argv += ["--workers", str(workers), "--json", *extra]
    for task in tasks:
        argv += ["--task", task]
    for system in SYSTEMS:
        argv += ["-s", str(BENCHMARK / "submissions" / system)]
    begun = time.monotonic()
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    took = time.monotonic() - begun
    if done.returncode not in (0, 1):
        sys.exit(f"eval failed ({done.returncode}): {done.stderr[-2000:]}")
    return took, json.loads(done.stdout)


def _cluster_cpus() -> str:
    """``sinfo``'s CPUs allocated/idle/other/total: other users' jobs hold some."""
    done = subprocess.run(["sinfo", "-h", "-o", "%C"], capture_output=True, text=True)
    return done.stdout.strip() or "unknown"


def _verdicts(results: dict[str, Any]) -> dict[tuple[str, str, int], str]:
    return {(r["system"], r["task"], r["implementation"]): r["verdict"] for r in results["runs"]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", action="append", default=[])
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3, help="pairs of evaluations")
    parser.add_argument("--target", type=float, default=1.0, help="max overhead per run (s)")
    args = parser.parse_args()
    in_flight = ("--max-in-flight", str(args.workers))
    locals_s: list[float] = []
    slurms_s: list[float] = []
    same = True
    runs = 0
    with tempfile.TemporaryDirectory(prefix="bench-executors-") as scratch:
        folder = Path(scratch)
        _eval(folder / "warm", args.task, 2)  # builds the images: not timed
        load_before = os.getloadavg()
        cpus_before = _cluster_cpus()
        # Alternated, so that a change of the machine's load falls on both alike.
        for turn in range(args.repeat):
            local_s, local = _eval(folder / f"local{turn}", args.task, args.workers, "--force")
            slurm_s, slurm = _eval(
                folder / f"slurm{turn}", args.task, 2, "--force", "--executor", "slurm", *in_flight
            )
            locals_s.append(local_s)
            slurms_s.append(slurm_s)
            same = same and _verdicts(local) == _verdicts(slurm)
            runs = len(local["runs"])
        load_after = os.getloadavg()
    local_s, slurm_s = statistics.median(locals_s), statistics.median(slurms_s)
    overhead = (slurm_s - local_s) / runs * args.workers
    print(f"cpus: {os.cpu_count()}")
    print("load average (1, 5, 15 min) before: " + ", ".join(f"{x:.2f}" for x in load_before))
    print("load average (1, 5, 15 min) after:  " + ", ".join(f"{x:.2f}" for x in load_after))
    print(f"cluster CPUs (allocated/idle/other/total) at the start: {cpus_before}")
    print(f"runs: {runs} ({args.workers} at once: local --workers, slurm --max-in-flight)")
    print("local each: " + ", ".join(f"{x:.2f}" for x in locals_s) + " s")
    print("slurm each: " + ", ".join(f"{x:.2f}" for x in slurms_s) + " s")
    print(f"local: {local_s:7.2f} s median  ({local_s / runs:.2f} s per run)")
    print(f"slurm: {slurm_s:7.2f} s median  ({slurm_s / runs:.2f} s per run)")
    print(f"overhead per run: {overhead:+.2f} s (target <= {args.target:.2f} s)")
    print(f"same verdicts: {'yes' if same else 'NO'}")
    return 0 if same and overhead <= args.target else 1


if __name__ == "__main__":
    sys.exit(main())
