"""How fast runs are, side by side with what they are measured against (issue 43).

    python benchmarks/bench_speed.py BENCH --base-image IMG [--task NAME]...
        [--rounds N] [--timeout S] [--mutants NAME] [--workers N] [--skip SECTION]...

For the tasks of BENCH (LMR-Bench's ``benchmark/`` with a stand-in base image, or the
sample benchmark), on built images with the golden proofs kept (a first eval, not timed,
makes them), three tables, each figure with the machine's load average (1 min) when it
was taken:

* ``runs``: one run of the golden goal file through the sandbox (`run_tests`, what an
  eval worker spends on a run) against a bare ``docker run`` of the same test in the
  same image (the golden file mounted over the goal file, the image's user, no network),
  interleaved round after round; medians, the difference, the CPU seconds each
  container used (its cgroup's count), and the median of each phase of our run
  (`lmr_author.sandbox.run_phases`: container, harness, test, removal);
* ``eval``: ``lmr-author eval`` of the golden and the masked files (``--workers 2``, a
  process per task, as a user runs it) against the published evaluation loop on the same
  images (`published_benchmark.py`'s rewrite of it); medians, per task, in all, and for
  one eval of every task chosen (``--task``: startup paid once), and their ratios;
* ``mutants``: the mutation test of ``--mutants`` (default 27-Lion) the old way (one
  fresh container per mutant, one at a time) and the new way (`MutantRunner`: the
  mutants share ``--workers`` containers), with both scores, which must agree.

Measure on a quiet machine (load below 2): the figures move with the load, which is
why each is printed with it.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import published_benchmark as published  # noqa: E402

from lmr_author.domain.benchmark import load_benchmark  # noqa: E402
from lmr_author.domain.task import Task  # noqa: E402
from lmr_author.images.task_images import DEFAULT_UID, ImageRef, ensure_image  # noqa: E402
from lmr_author.sandbox.golden import run_against_golden_counts  # noqa: E402
from lmr_author.sandbox.limits import Limits  # noqa: E402
from lmr_author.sandbox.run_spec import RunSpec  # noqa: E402
from lmr_author.sandbox.runner import LocalRunner  # noqa: E402

SECTIONS = ("runs", "eval", "mutants")


def load() -> str:
    """The 1-minute load average, as printed beside each figure."""
    return f"load {os.getloadavg()[0]:.1f}"


def timed(action: Callable[[], Any]) -> tuple[float, str, Any]:
    """Seconds ``action`` took, the load when it ended, and what it returned."""
    started = time.monotonic()
    result = action()
    return time.monotonic() - started, load(), result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("benchmark", type=Path, metavar="BENCH")
    parser.add_argument("--base-image", metavar="IMG")
    parser.add_argument("--task", action="append", default=[], metavar="NAME")
    parser.add_argument("--rounds", type=int, default=3, metavar="N")
    parser.add_argument("--timeout", type=float, default=600.0, metavar="S")
    parser.add_argument("--mutants", default="27-Lion", metavar="NAME")
    parser.add_argument("--workers", type=int, default=2, metavar="N")
    parser.add_argument("--skip", action="append", default=[], choices=SECTIONS)
    args = parser.parse_args()
    import docker

    client = docker.from_env()
    loaded = load_benchmark(args.benchmark, args.task or None)
    tasks = loaded.tasks
    limits = Limits(timeout_s=args.timeout)
    print(f"{os.cpu_count()} CPUs; {load()} at the start; {args.rounds} rounds, medians")
    images = {
        task.name: ensure_image(task, client=client, base_image=args.base_image) for task in tasks
    }
    with tempfile.TemporaryDirectory(prefix="bench-speed-") as scratch:
        work = Path(scratch)
        systems = published._write_systems(tasks, work / "systems")
        # Golden proofs kept before anything is timed (eval makes them once).
        for task in tasks:
            _eval(task, args, systems, work / "warm")
        if "runs" not in args.skip:
            runs_table(tasks, images, limits, args, client)
        if "eval" not in args.skip:
            eval_table(tasks, images, client, args, systems, work)
    if "mutants" not in args.skip:
        mutants_table(args, limits)
    print(f"{load()} at the end")
    return 0


def _golden_run(task: Task, image: ImageRef, limits: Limits, client: Any) -> Any:
    impl = task.implementations[0]
    spec = RunSpec(task, impl, impl.golden_path.read_bytes(), image, limits)
    return run_against_golden_counts(spec, LocalRunner(client))


#: The CPU seconds a bare container used, printed by it as its last line (cgroup v2 or v1).
_CPU_LINE = (
    "u=$(sed -n 's/^usage_usec //p' /sys/fs/cgroup/cpu.stat 2>/dev/null); "
    'if [ -n "$u" ]; then echo "cpu $u 1000000"; '
    'else echo "cpu $(cat /sys/fs/cgroup/cpuacct/cpuacct.usage) 1000000000"; fi'
)


def _bare_run(task: Task, image: ImageRef, timeout: float) -> tuple[str, float | None]:
    """The test in its image as the published loop runs it, without our sandbox: how it
    ended, and the CPU seconds the container used."""
    impl = task.implementations[0]
    repo = f"{image.workdir}"
    goal = f"{repo}/{impl.goal_file}"
    script = f'timeout {int(timeout)} python "$0"; s=$?; {_CPU_LINE}; exit $s'
    done = subprocess.run(
        [
            "docker", "run", "--rm", "--network", "none",
            "--user", f"{DEFAULT_UID}:{DEFAULT_UID}",
            "-v", f"{impl.golden_path}:{goal}:ro",
            "-w", repo, "-e", f"PYTHONPATH={repo}", "--entrypoint", "sh",
            image.image_id, "-c", script, impl.unit_test_file,
        ],
        capture_output=True,
        text=True,
        check=False,
    )  # fmt: skip
    cpu = None
    last = (done.stdout.strip().splitlines() or [""])[-1].split()
    if len(last) == 3 and last[0] == "cpu" and last[1].isdigit():
        cpu = int(last[1]) / int(last[2])
    return ("ok" if done.returncode == 0 else f"exit {done.returncode}"), cpu


def runs_table(
    tasks: list[Task],
    images: dict[str, ImageRef],
    limits: Limits,
    args: argparse.Namespace,
    client: Any,
) -> None:
    print()
    print("runs: one run of the golden file, ours (run_tests) vs a bare docker run of its test")
    print(
        f"{'task':<24} {'bare s':>7} {'ours s':>7} {'more s':>7} {'CPU bare':>8} {'CPU ours':>8}"
        "  verdicts   loads"
    )
    phases: dict[str, list[float]] = {}
    for task in tasks:
        image = images[task.name]
        bare: list[float] = []
        ours: list[float] = []
        loads: list[str] = []
        verdicts = set()
        cpu: dict[str, list[float]] = {"bare": [], "ours": []}
        for _ in range(args.rounds):
            seconds, when, (status, used) = timed(partial(_bare_run, task, image, args.timeout))
            bare.append(seconds)
            loads.append(when)
            cpu["bare"] += [used] if used is not None else []
            seconds, when, run = timed(partial(_golden_run, task, image, limits, client))
            ours.append(seconds)
            loads.append(when)
            cpu["ours"] += [sum(v.cpu_s or 0.0 for v in run.verdicts)]
            verdicts.add(f"{status}/{run.verdict}")
            for verdict in run.verdicts:
                for phase in verdict.phases:
                    name = phase.name.split(" (")[0] if phase.inner else phase.name
                    phases.setdefault(name, []).append(phase.seconds)
        median_bare, median_ours = statistics.median(bare), statistics.median(ours)
        used = {way: f"{statistics.median(v):.2f}" if v else "-" for way, v in cpu.items()}
        print(
            f"{task.name:<24} {median_bare:>7.2f} {median_ours:>7.2f} "
            f"{median_ours - median_bare:>+7.2f} {used['bare']:>8} {used['ours']:>8}  "
            f"{','.join(sorted(verdicts)):<10} {' '.join(item.split()[1] for item in loads)}"
        )
    print("phases of our runs (median over every run above):")
    for name, values in phases.items():
        print(f"  {name:<46} {statistics.median(values):7.2f} s")


def _eval(
    task: Task | None, args: argparse.Namespace, systems: dict[str, Path], out: Path
) -> float:
    """Seconds ``eval`` of ``task`` (None: of every task chosen) takes, as a user runs it."""
    argv = [sys.executable, "-m", "lmr_author", "eval", str(args.benchmark)]
    for name in [task.name] if task is not None else args.task:
        argv += ["--task", name]
    for system in systems.values():
        argv += ["-s", str(system)]
    argv += ["--output", str(out / (task.name if task else "all")), "--workers", "2", "--json"]
    argv += ["--timeout", str(args.timeout)]
    if args.base_image:
        argv += ["--base-image", args.base_image]
    # As an installed lmr-author runs: its modules' bytecode kept, not compiled each time.
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    started = time.monotonic()
    subprocess.run(argv, capture_output=True, text=True, check=False, env=env)
    return time.monotonic() - started


def eval_table(
    tasks: list[Task],
    images: dict[str, ImageRef],
    client: Any,
    args: argparse.Namespace,
    systems: dict[str, Path],
    work: Path,
) -> None:
    print()
    print("eval (golden + masked, --workers 2) vs the published loop (golden, then masked)")
    print(f"{'task':<24} {'eval s':>7} {'loop s':>7} {'ratio':>6}  loads")
    options = argparse.Namespace(timeout=args.timeout, gpus=None, hf_cache=None)
    totals = [0.0, 0.0]
    for task in tasks:
        ours: list[float] = []
        theirs: list[float] = []
        loads: list[str] = []
        for number in range(args.rounds):
            seconds = _eval(task, args, systems, work / f"ours{number}")
            ours.append(seconds)
            loads.append(load())
            row = published.Row(task.name)
            published._theirs(task, row, images[task.name], client, options, work, None)
            theirs.append(row.theirs_s or 0.0)
            loads.append(load())
        one, other = statistics.median(ours), statistics.median(theirs)
        totals[0] += one
        totals[1] += other
        print(
            f"{task.name:<24} {one:>7.1f} {other:>7.1f} {one / max(other, 1e-9):>6.2f}  "
            f"{' '.join(item.split()[1] for item in loads)}"
        )
    print(
        f"{'all, an eval per task':<24} {totals[0]:>7.1f} {totals[1]:>7.1f} "
        f"{totals[0] / max(totals[1], 1e-9):>6.2f}"
    )
    if len(tasks) > 1:
        together: list[float] = []
        loads = []
        for number in range(args.rounds):
            together.append(_eval(None, args, systems, work / f"all{number}"))
            loads.append(load().split()[1])
        one = statistics.median(together)
        print(
            f"{'all, one eval':<24} {one:>7.1f} {totals[1]:>7.1f} "
            f"{one / max(totals[1], 1e-9):>6.2f}  {' '.join(loads)}"
        )


def mutants_table(args: argparse.Namespace, limits: Limits) -> None:
    from lmr_author.mutation.score import mutation_test

    found = load_benchmark(args.benchmark, [args.mutants]).tasks
    if not found:
        print(f"\nmutants: no task {args.mutants} in {args.benchmark}")
        return
    task = found[0]
    print()
    print(f"mutants of {task.name}: one container each, one at a time (old) vs shared (new)")
    rows = []
    for way, options in (
        ("old", {"runner": LocalRunner()}),
        (f"new, {args.workers} workers", {"workers": args.workers}),
    ):
        seconds, when, reports = timed(
            partial(mutation_test, task, base_image=args.base_image, limits=limits, **options)
        )
        total = sum(report.total for report in reports)
        killed = sum(report.killed for report in reports)
        survivors = sorted(m.key for report in reports for m in report.survivors)
        rows.append((way, seconds, when, total, killed, survivors))
        print(f"  {way:<14} {seconds:7.1f} s  {total} mutants, {killed} killed  {when}")
    agree = rows[0][3:] == rows[1][3:]
    print(f"  same mutants killed and survived both ways: {'yes' if agree else 'NO'}")


if __name__ == "__main__":
    sys.exit(main())
