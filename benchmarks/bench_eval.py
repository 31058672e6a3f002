"""Benchmark of `lmr-author eval` against the real Docker sandbox.

Creates a few tiny tasks and several systems in a temporary folder, then prints:

* image builds on a cold cache and on a warm one (warm must be 0);
* the median per-run overhead above the test's own run time, warm (target <= 1 s);
* the speed-up from 1 to N workers (target >= 0.8 * N while cores allow);
* what the hardening of issue 13 costs (harness, nonce, tmpfs scratch, streamed
  read-back): the warm per-run wall time of one trivial test, with the sandbox code of
  ``BEFORE_REV`` (checked out from git into a temporary worktree) and with this code,
  on the same image, one after the other (target: at most +0.15 s per run).

Run from the repository root (needs a Docker engine and the base image
``python:3.11-slim``, see ``lmr-author sandbox base-image``)::

    python benchmarks/bench_eval.py [--tasks 3] [--workers 2] [--kind cpu|sleep] [--seconds 1]
    python benchmarks/bench_eval.py --hardening-only [--runs 15]

``--kind cpu`` makes each test burn ``--seconds`` of CPU (honest about cores);
``--kind sleep`` makes it sleep (shows the pool's overlap when cores are scarce).
The images it builds carry the sandbox labels and are removed at the end.

``--sample`` measures the repository's own ``benchmark/`` with the systems of
``benchmark/submissions/predictions.jsonl`` instead (cold = forced rebuilds; its images
are kept, as other commands use them).
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
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lmr_author.domain.task import Implementation, Task
from lmr_author.eval_loop import (
    DockerBackend,
    ImplementationResult,
    PreparedImage,
    RunRecord,
    Submission,
    run_evaluation,
)
from lmr_author.runtime import TASK_LABEL

DOCKERFILE = """\
FROM python:3.11-slim
ARG UID=1000
ARG GID=1000
ARG DIR=repo
# bench salt {salt}
RUN (getent group "$GID" || groupadd -g "$GID" lmr) \\
    && useradd -m -u "$UID" -g "$GID" -s /bin/sh lmr
COPY --chown=${{UID}}:${{GID}} ${{DIR}} /workspace/${{DIR}}
WORKDIR /workspace/${{DIR}}
ENV PYTHONPATH=/workspace/${{DIR}}
USER ${{UID}}:${{GID}}
"""

GOLDEN = "def add(a, b):\n    return a + b\n"
MASKED = "def add(a, b):\n    raise NotImplementedError\n"
SYSTEMS = {
    "correct": GOLDEN,
    "wrong": "def add(a, b):\n    return a - b\n",
    "crashes": "def add(a, b):\n    return a + undefined_name\n",
}

TEST = """\
import time

import calc

if {kind!r} == "cpu":
    end = time.process_time() + {seconds}
    while time.process_time() < end:
        sum(range(1000))
else:
    time.sleep({seconds})
assert calc.add(3, 4) == 7
print("Test Passed")
"""


def make_tasks(root: Path, count: int, kind: str, seconds: float, salt: str) -> list[str]:
    names = []
    for number in range(1, count + 1):
        name = f"{number:02d}-Bench{salt}"
        task = root / "bench" / name
        (task / "repo" / "unit_test").mkdir(parents=True)
        (task / "golden_files").mkdir()
        (task / "Dockerfile").write_text(DOCKERFILE.format(salt=salt))
        (task / "golden_files" / "calc_golden.py").write_text(GOLDEN)
        (task / "repo" / "calc.py").write_text(MASKED)
        (task / "repo" / "unit_test" / "unit_test_1.py").write_text(
            TEST.format(kind=kind, seconds=seconds)
        )
        info = {
            "instance_id": number,
            "paper_name": "bench",
            "folder_name": name,
            "repo_folder_name": "repo",
            "implementations": [
                {
                    "instruction": "Implement add.",
                    "index": 1,
                    "category": "Arithmetic",
                    "goal_file": "calc.py",
                    "goal_function": "add",
                    "class_name": "",
                    "golden_file": "golden_files/calc_golden.py",
                    "retrieval_context": [],
                    "unit_test_file": "unit_test/unit_test_1.py",
                }
            ],
        }
        (task / "info.json").write_text(json.dumps(info, indent=4))
        for system, source in SYSTEMS.items():
            path = root / "subs" / system / name / "repo" / "calc.py"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(source)
        names.append(name)
    return names


@dataclass
class Setup:
    benchmark: Path
    submissions: list[Submission]
    root: Path


class CountingBackend(DockerBackend):
    """The real backend, counting the images it had to build and the sandbox's own time."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.builds = 0
        self.sandbox_overheads: list[float] = []

    def run(
        self, task: Task, implementation: Implementation, candidate: bytes, image: PreparedImage
    ) -> ImplementationResult:
        outcome = super().run(task, implementation, candidate, image)
        wall = float(getattr(outcome, "wall_s", 0.0))
        self.sandbox_overheads.append(wall - sum(v.duration_s for v in outcome.verdicts))
        return outcome

    def prepare(self, task: Task) -> PreparedImage:
        image = super().prepare(task)
        self.builds += bool(getattr(image, "built", False))
        return image


def evaluate(
    setup: Setup, out: str, workers: int, *, rebuild: bool = False
) -> tuple[float, CountingBackend, list[RunRecord]]:
    backend = CountingBackend(rebuild=rebuild)
    start = time.monotonic()
    try:
        results = run_evaluation(
            setup.benchmark, setup.submissions, setup.root / out, workers=workers, backend=backend
        )
    finally:
        backend.close()
    elapsed = time.monotonic() - start
    bad = [run for run in results.runs if run.verdict == "infra-error"]
    if bad:
        raise SystemExit(f"infrastructure failure: {bad[0].reason}")
    return elapsed, backend, results.runs


def overheads(runs: list[RunRecord]) -> list[float]:
    return [run.duration_s - sum(test.duration_s for test in run.tests) for run in runs]


def measure(setup: Setup, workers: int, *, rebuild_cold: bool = False) -> None:
    """Print the figures of the module docstring for one benchmark and its systems."""
    cold_s, cold, _ = evaluate(setup, "cold", 1, rebuild=rebuild_cold)
    print(f"cold cache: {cold.builds} image builds ({cold_s:.1f} s in all)")
    one_s, warm, warm_runs = evaluate(setup, "warm1", 1)
    print(f"warm cache: {warm.builds} image builds")
    spent = overheads(warm_runs)
    sandbox = statistics.median(warm.sandbox_overheads)
    print(
        f"per-run overhead above the test's own run time (warm, 1 worker): median "
        f"{statistics.median(spent):.2f} s, max {max(spent):.2f} s (target <= 1 s); "
        f"of which in the sandbox runner (container create/copy/start/remove): "
        f"median {sandbox:.2f} s"
    )
    tests = [sum(t.duration_s for t in run.tests) for run in warm_runs]
    print(f"test's own run time: median {statistics.median(tests):.2f} s")
    many_s, _, _ = evaluate(setup, f"warm{workers}", workers)
    print(
        f"1 worker: {one_s:.1f} s; {workers} workers: {many_s:.1f} s; speed-up "
        f"{one_s / many_s:.2f}x (target >= {0.8 * workers:.1f}x)"
    )
    resume_s, _, _ = evaluate(setup, f"warm{workers}", workers)
    print(f"rerun with every run done (resume): {resume_s:.2f} s")


#: The last commit before verdicts came from the harness (issue 13).
BEFORE_REV = "940f575aec38ce2a4057603f0f806067b5412c67"

#: Times ``runs`` warm runs of the golden candidate with the lmr_author on sys.path.
_TIMER = """
import json, sys, time
from lmr_author.runtime.engine import get_client
from lmr_author.images.task_images import ensure_image
from lmr_author.sandbox.run_spec import RunSpec
from lmr_author.sandbox.runner import run_tests
from lmr_author.domain.task import load_task
task = load_task(sys.argv[1])
runs = int(sys.argv[2])
client = get_client()
image = ensure_image(task, client=client)
impl = task.implementations[0]
golden = impl.golden_path.read_bytes()
walls, verdicts = [], []
for number in range(runs + 1):
    begun = time.monotonic()
    run = run_tests(RunSpec(task, impl, golden, image), client=client)
    if number:  # the first run warms the engine's caches
        walls.append(time.monotonic() - begun)
        verdicts.append(run.verdict)
print(json.dumps({"walls": walls, "verdicts": verdicts}))
"""


def _time_runs(code_root: Path, task_dir: Path, runs: int) -> list[float]:
    env = {**os.environ, "PYTHONPATH": str(code_root)}
    done = subprocess.run(
        [sys.executable, "-c", _TIMER, str(task_dir), str(runs)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"timing with {code_root} failed:\n{done.stderr[-2000:]}")
    data = json.loads(done.stdout.strip().splitlines()[-1])
    if set(data["verdicts"]) != {"pass"}:
        raise SystemExit(f"the golden candidate did not pass with {code_root}: {data}")
    return [float(x) for x in data["walls"]]


def hardening_cost(runs: int) -> None:
    """Print the warm per-run wall time before and after the hardening, same machine."""
    repo = Path(__file__).resolve().parent.parent
    salt = uuid.uuid4().hex[:8]
    with tempfile.TemporaryDirectory(prefix="bench-harden-") as tmp:
        root = Path(tmp)
        (name,) = make_tasks(root, 1, "sleep", 0.0, salt)
        task_dir = root / "bench" / name
        before = root / "before"
        added = subprocess.run(
            ["git", "-C", str(repo), "worktree", "add", "--detach", str(before), BEFORE_REV],
            capture_output=True,
            text=True,
            check=False,
        )
        if added.returncode != 0:
            print(f"hardening cost: skipped ({BEFORE_REV[:7]} is not in this clone)")
            return
        try:
            old = _time_runs(before, task_dir, runs)
            new = _time_runs(repo, task_dir, runs)
        finally:
            subprocess.run(
                ["git", "-C", str(repo), "worktree", "remove", "--force", str(before)],
                capture_output=True,
                check=False,
            )
            import docker

            client = docker.from_env()
            for image in client.images.list(filters={"label": f"{TASK_LABEL}={name}"}):
                client.images.remove(str(image.id), force=True)
            client.close()
    old_median, new_median = statistics.median(old), statistics.median(new)
    print(
        f"hardening cost, warm per-run wall time of one trivial test ({runs} runs each): "
        f"before ({BEFORE_REV[:7]}) median {old_median:.3f} s, after median "
        f"{new_median:.3f} s: {new_median - old_median:+.3f} s per run (target <= +0.15 s)"
    )


def sample(workers: int) -> None:
    """Measure the repository's benchmark/ with its sample predictions."""
    repo = Path(__file__).resolve().parent.parent
    predictions = repo / "benchmark" / "submissions" / "predictions.jsonl"
    if not predictions.is_file():
        raise SystemExit(f"no sample predictions at {predictions}")
    with tempfile.TemporaryDirectory(prefix="bench-eval-") as tmp:
        setup = Setup(repo / "benchmark", [Submission(predictions)], Path(tmp))
        print(f"sample benchmark {setup.benchmark} with {predictions.name}")
        measure(setup, workers, rebuild_cold=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", type=int, default=3)
    parser.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--kind", choices=("cpu", "sleep"), default="cpu")
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--sample", action="store_true", help="use the repository's benchmark/")
    parser.add_argument("--runs", type=int, default=15, help="runs per side of the hardening cost")
    parser.add_argument(
        "--hardening-only", action="store_true", help="only the before/after hardening cost"
    )
    args = parser.parse_args()
    if args.hardening_only:
        hardening_cost(args.runs)
        return
    if args.sample:
        sample(args.workers)
        hardening_cost(args.runs)
        return

    import docker

    client = docker.from_env()
    salt = uuid.uuid4().hex[:8]
    with tempfile.TemporaryDirectory(prefix="bench-eval-") as tmp:
        root = Path(tmp)
        names = make_tasks(root, args.tasks, args.kind, args.seconds, salt)
        setup = Setup(
            root / "bench", [Submission(root / "subs" / system) for system in SYSTEMS], root
        )
        runs_total = args.tasks * len(SYSTEMS)
        print(
            f"{args.tasks} tasks x {len(SYSTEMS)} systems = {runs_total} runs; each test "
            f"{'burns' if args.kind == 'cpu' else 'sleeps'} {args.seconds:g} s; "
            f"{os.cpu_count()} cores"
        )
        try:
            measure(setup, args.workers)
            hardening_cost(args.runs)
        finally:
            for name in names:
                for image in client.images.list(filters={"label": f"{TASK_LABEL}={name}"}):
                    client.images.remove(str(image.id), force=True)
            client.close()


if __name__ == "__main__":
    main()
