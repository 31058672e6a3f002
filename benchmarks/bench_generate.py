"""Benchmark of `generate` against a local chat-completions server.

Runs `generate` on the sample benchmark with --samples N (8 x N requests) at a given
concurrency against a server that answers after a delay, then again (0 requests: every
answer is kept), then with the predictions file removed (0 requests: the cache answers),
and a dry run. Prints wall times, requests made and the predictions file size; exit code
1 when a rerun or the dry run made a request. Run from the repository root:

    python benchmarks/bench_generate.py [--samples 25] [--concurrency 8] [--delay 0.1]

The predictions file is rewritten atomically after every answer; the first figure shows
what that costs against the ideal (requests / concurrency x delay).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lmr_author.domain.benchmark import load_benchmark  # noqa: E402
from lmr_author.generation.runner import (  # noqa: E402
    GenerateConfig,
    plan_generation,
    run_generation,
)


def _requests(base_url: str) -> int:
    root = base_url.rsplit("/v1", 1)[0]
    with urllib.request.urlopen(f"{root}/_stats", timeout=10) as response:
        return int(json.load(response)["requests"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=25)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--delay", type=float, default=0.1, help="server answer delay (s)")
    args = parser.parse_args()
    import openai

    openai.OpenAI(api_key="warm-up", base_url="http://127.0.0.1:9/v1").close()
    server = subprocess.Popen(
        [sys.executable, "-m", "tests.support.openai_server", "--delay", str(args.delay)],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    failed = False
    try:
        assert server.stdout is not None
        base_url = server.stdout.readline().strip()
        with tempfile.TemporaryDirectory(prefix="bench-generate-") as tmp:
            root = Path(tmp)
            os.environ["LMR_AUTHOR_CACHE_DIR"] = str(root / "cache")
            out = root / "predictions.jsonl"
            tasks = load_benchmark(ROOT / "benchmark").tasks
            config = GenerateConfig.of(
                model="bench-model",
                base_url=base_url,
                samples=args.samples,
                temperature=0.8,
                concurrency=args.concurrency,
            )
            total = 8 * args.samples
            ideal = total / args.concurrency * args.delay
            for label in ("first run", "rerun (kept)", "no file (cache)", "dry run"):
                if label == "no file (cache)":
                    out.unlink()
                before = _requests(base_url)
                started = time.perf_counter()
                plan = plan_generation(tasks, config, out)
                if label != "dry run":
                    run_generation(plan, out)
                elapsed = time.perf_counter() - started
                made = _requests(base_url) - before
                extra = f" (ideal {ideal:.2f} s)" if label == "first run" else ""
                print(f"{label:<16} {elapsed:6.2f} s{extra}, {made} requests")
                if label != "first run" and made:
                    failed = True
            size = out.stat().st_size
            print(f"predictions: {total} lines, {size / 1e6:.2f} MB")
    finally:
        server.stdin.close() if server.stdin else None
        server.terminate()
        server.wait(timeout=10)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
