"""Benchmark of the new-task app: first screen, and the function list on a big repository.

Targets (issue 8): the first screen in under 1 s; on a repository of about 1 million
lines the function list appears progressively and is complete within 5 s.

    python benchmarks/bench_new_task.py               # corpus copied from installed packages
    python benchmarks/bench_new_task.py --repo PATH   # your own repository

The app runs headless (Textual's test driver) in a fresh process, as a user would start
it; the function index cache goes to a temporary folder, so the first pass is cold.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

FIRST_SCREEN = r"""
import asyncio, json, sys, time
started = time.perf_counter()
from pathlib import Path
from lmr_author.tui.new_task.app import NewTaskApp
from lmr_author.tui.new_task.steps.source import SourceStep

async def main():
    app = NewTaskApp(benchmark_dir=Path("benchmark"), draft_name="bench-first")
    async with app.run_test(size=(120, 40)) as pilot:
        while not isinstance(app.screen, SourceStep):
            await asyncio.sleep(0.005)
        await pilot.pause()
        print(json.dumps({"first_screen_s": time.perf_counter() - started}))

asyncio.run(main())
"""

FUNCTION_LIST = r"""
import asyncio, json, sys, time
from pathlib import Path
from lmr_author.authoring.spec import TaskSpec, draft_path, save_spec
from lmr_author.tui.new_task.app import NewTaskApp
from lmr_author.tui.new_task.steps.goal import GoalStep

repo = sys.argv[1]
save_spec(TaskSpec(source=repo, repo_path=repo, step="goal"), draft_path("bench-goal"))

async def main():
    app = NewTaskApp(benchmark_dir=Path("benchmark"), draft_name="bench-goal")
    async with app.run_test(size=(120, 40)):
        started = time.perf_counter()
        first = None
        batches = 0
        seen = 0
        while True:
            screen = app.screen
            if isinstance(screen, GoalStep):
                if len(screen.functions) != seen:
                    seen = len(screen.functions)
                    batches += 1
                    if first is None:
                        first = time.perf_counter() - started
                worker_busy = any(w.name == "_index" and not w.is_finished for w in app.workers)
                status = str(screen.query_one("#status").visual)
                if seen and not worker_busy and "indexing" not in status:
                    break
            await asyncio.sleep(0.01)
        print(json.dumps({"first_batch_s": first, "complete_s": time.perf_counter() - started,
                          "functions": seen, "updates": batches}))

asyncio.run(main())
"""


def run_script(script: str, *args: str, env: dict[str, str]) -> tuple[dict[str, float], float]:
    started = time.perf_counter()
    completed = subprocess.run(
        [sys.executable, "-c", script, *args],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    wall = time.perf_counter() - started
    if completed.returncode != 0:
        sys.exit(f"benchmark script failed:\n{completed.stderr[-3000:]}")
    return json.loads(completed.stdout.strip().splitlines()[-1]), wall


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo", type=Path, help="list this repository instead of a corpus")
    parser.add_argument("--files", type=int, default=2400)
    parser.add_argument("--lines", type=int, default=1_000_000)
    args = parser.parse_args()
    sys.path.insert(0, str(HERE))
    from bench_cst import build_corpus  # the corpus the indexing benchmark uses

    failures = 0
    with tempfile.TemporaryDirectory(prefix="bench-new-task-") as scratch:
        env = {
            **os.environ,
            "LMR_AUTHOR_CACHE_DIR": str(Path(scratch) / "cache"),
            "LMR_AUTHOR_DATA_DIR": str(Path(scratch) / "data"),
        }
        figures, wall = run_script(FIRST_SCREEN, env=env)
        first = figures["first_screen_s"]
        print(
            f"first screen: {first:.2f} s after the imports began "
            f"({wall:.2f} s for the whole process incl. interpreter start and exit); "
            f"target < 1 s: {'ok' if first < 1 else 'MISSED'}"
        )
        failures += first >= 1
        repo = args.repo or build_corpus(Path(scratch) / "corpus", args.files, args.lines)
        py_files = list(Path(repo).rglob("*.py"))
        lines = sum(p.read_bytes().count(b"\n") for p in py_files)
        print(f"repository: {len(py_files)} Python files, {lines:,} lines")
        for label in ("cold cache", "warm cache"):
            figures, _ = run_script(FUNCTION_LIST, str(repo), env=env)
            complete = figures["complete_s"]
            print(
                f"function list ({label}): first functions after {figures['first_batch_s']:.2f}"
                f" s, complete after {complete:.2f} s ({figures['functions']:,} functions, "
                f"{figures['updates']} updates); target complete <= 5 s: "
                f"{'ok' if complete <= 5 else 'MISSED'}"
            )
            failures += complete > 5
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
