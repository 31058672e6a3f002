"""How long docs/inspect.md's sample-benchmark command takes, first run and run again.

Runs the command docs/inspect.md shows, from the repository root, as a user would::

    inspect eval lmr_author/lmr_bench -T benchmark=benchmark \\
        -T replay=benchmark/submissions/predictions.jsonl -T system=correct

(as ``python -m inspect_ai``, with a fresh eval output folder, ``-T output``, and log
folder, so that the first run really runs every implementation), and prints:

* the task images: built here first when missing, timed apart (0 s when built);
* the first run: every implementation run in Docker, the images built;
* the re-runs (``--reruns``): every run found in the output folder by its key, nothing
  run in Docker: median, fastest, slowest; and of one task (``-T tasks=01-DPO``), to
  tell the part that grows with the samples from the part that does not;
* the floor of any ``inspect eval``: Python started with Inspect and the bridge imported
  (median of three), which is most of a re-run;
* the cores and load average, as the machine is shared and the figures move with them.

Run from the repository root (needs a Docker engine and the base image)::

    python3 benchmarks/bench_inspect.py [--reruns 3] [--system correct]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PREDICTIONS = "benchmark/submissions/predictions.jsonl"
#: The `inspect` command of this environment, as the docs run it.
INSPECT = str(Path(sys.executable).with_name("inspect"))


def _timed(command: list[str]) -> float:
    """Seconds ``command`` took, run from the repository root; exits on a failure."""
    started = time.monotonic()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    seconds = time.monotonic() - started
    if done.returncode != 0:
        sys.exit(f"failed ({done.returncode}): {' '.join(command)}\n{done.stderr[-2000:]}")
    return seconds


def _build_images() -> float:
    """Build the sample benchmark's task images that are missing; seconds it took."""
    import docker

    from lmr_author.domain.benchmark import load_benchmark
    from lmr_author.images.task_images import ensure_image

    client = docker.from_env()
    started = time.monotonic()
    for task in load_benchmark(ROOT / "benchmark"):
        ensure_image(task, client=client)
    client.close()
    return time.monotonic() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reruns", type=int, default=3, help="re-runs to time (3)")
    parser.add_argument("--system", default="correct", help="the replayed system (correct)")
    args = parser.parse_args()

    print(f"cores: {os.cpu_count()}, load average: {os.getloadavg()[0]:.1f} (1 min)")
    print(f"task images: {_build_images():.1f} s (0 when built)")
    with tempfile.TemporaryDirectory(prefix="lmr-bench-inspect-") as scratch:
        shown = (
            "inspect eval lmr_author/lmr_bench -T benchmark=benchmark "
            f"-T replay={PREDICTIONS} -T system={args.system}"
        )
        command = [
            INSPECT, "eval", "lmr_author/lmr_bench",
            "-T", "benchmark=benchmark", "-T", f"replay={PREDICTIONS}",
            "-T", f"system={args.system}", "-T", f"output={Path(scratch) / 'runs'}",
            "--log-dir", str(Path(scratch) / "logs"), "--display", "none",
        ]  # fmt: skip
        print(f"command: {shown}")
        print(f"first run (every implementation run in Docker): {_timed(command):.1f} s")
        for label, extra in (("", []), (" of one task", ["-T", "tasks=01-DPO"])):
            reruns = [_timed(command + extra) for _ in range(args.reruns)]
            print(
                f"re-run{label} (runs found by their keys), {len(reruns)} times: median "
                f"{statistics.median(reruns):.1f} s, fastest {min(reruns):.1f} s, "
                f"slowest {max(reruns):.1f} s"
            )
    imports = [
        _timed([sys.executable, "-c", "import inspect_ai, lmr_author.inspect_bridge._registry"])
        for _ in range(3)
    ]
    print(f"Python with Inspect and the bridge imported: {statistics.median(imports):.1f} s")
    print(f"load average after: {os.getloadavg()[0]:.1f} (1 min)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
