"""Benchmark of the LLM judge against a local chat-completions server.

Target (issue 6): 100 judgments at concurrency 8 against a server that answers after
200 ms take at most 4 s; the same run again makes 0 requests. Both figures are printed;
the exit code is 1 when a target is missed. Run from the repository root:

    python benchmarks/bench_judge.py [--judgments 100] [--concurrency 8] [--delay 0.2]

The server (``tests/support/openai_server.py``) runs in its own process, as a real one
would, so it does not compete with the judge for this interpreter's GIL.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lmr_author.judge import JudgeConfig, run_judging  # noqa: E402
from tests.support.eval_output import RunSpec, build_eval_output  # noqa: E402


def _stats(base_url: str) -> dict[str, Any]:
    root = base_url.rsplit("/v1", 1)[0]
    with urllib.request.urlopen(f"{root}/_stats", timeout=10) as response:
        data: dict[str, Any] = json.load(response)
    return data


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--judgments", type=int, default=100)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--delay", type=float, default=0.2, help="server answer delay (s)")
    parser.add_argument("--limit", type=float, default=4.0, help="target seconds")
    args = parser.parse_args()

    # Importing the openai package (and the lazily imported parts the judge uses) takes
    # seconds on a busy machine; that is a one-off cost of the process, not of judging,
    # so it is measured and printed on its own.
    started = time.perf_counter()
    import openai
    import openai.resources.chat

    import lmr_author.cst.extract  # noqa: F401

    openai.OpenAI(api_key="warm-up", base_url="http://127.0.0.1:9/v1").close()
    import_s = time.perf_counter() - started

    server = subprocess.Popen(
        [sys.executable, "-m", "tests.support.openai_server", "--delay", str(args.delay)],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        base_url = server.stdout.readline().strip()
        with tempfile.TemporaryDirectory(prefix="bench-judge-") as tmp:
            root = Path(tmp)
            os.environ["LMR_AUTHOR_CACHE_DIR"] = str(root / "cache")  # a cold cache
            tasks = 10
            runs = [
                RunSpec(f"system{i // tasks}", f"{i % tasks + 1:02d}-Task{i % tasks}")
                for i in range(args.judgments)
            ]
            output = build_eval_output(root, runs)
            config = JudgeConfig.of(
                api_key="bench",
                base_url=base_url,
                model="bench-model",
                concurrency=args.concurrency,
            )
            started = time.perf_counter()
            first = run_judging(output, config)
            elapsed = time.perf_counter() - started
            after_first = _stats(base_url)

            again = run_judging(output, config)  # the same run again
            again_requests = _stats(base_url)["requests"] - after_first["requests"]

            copy = root / "copy"  # same candidates, no judgments on disk: the cache answers
            shutil.copytree(output, copy, ignore=shutil.ignore_patterns("judgments"))
            cached = run_judging(copy, config)
            cached_requests = _stats(base_url)["requests"] - after_first["requests"]
    finally:
        if server.stdin is not None:
            server.stdin.close()  # the server stops when its stdin closes
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()

    print(f"one-off import of openai and client set-up: {import_s:.2f} s (not counted)")
    print(
        f"first run: {first.asked} judgments, {after_first['requests']} requests, "
        f"max in flight {after_first['max_in_flight']}, {elapsed:.2f} s "
        f"(target <= {args.limit:.1f} s)"
    )
    print(f"same run again: {again_requests} requests ({again.kept} judgments kept)")
    print(f"fresh folder, warm cache: {cached_requests} requests ({cached.cached} from cache)")
    ok = (
        first.asked == args.judgments
        and after_first["max_in_flight"] <= args.concurrency
        and elapsed <= args.limit
        and again_requests == 0
        and cached_requests == 0
    )
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
