"""Compatibility benchmark: a published-layout benchmark under `lmr-author eval` and under
the published evaluation loop, task by task, on the same images.

    python benchmarks/published_benchmark.py BENCH --base-image IMG [--task NAME]...
        [--timeout S] [--work DIR] [--hf-cache DIR] [--gpus SPEC] [--json FILE]
        [--runtime docker|podman|apptainer] [--mutants]
    python benchmarks/published_benchmark.py BENCH --leaks [--task NAME]...

For every task folder of BENCH (LMR-Bench's ``benchmark/`` or one in its layout):

* whether it can run here, or why not: it does not load (missing repository, goal
  function), its image does not build on IMG, its data are Git LFS pointers, it needs a
  GPU or a model (what `eval` says);
* ours: `lmr-author eval` of two systems, the golden files and the masked files, as a
  user runs it (a subprocess, ``--base-image IMG``), the verdict per system, and its wall
  time (images built beforehand, so the time is the scoring's);
* theirs: the published loop, rewritten from its algorithm (evaluation/
  unit_test_evaluation.py and get_statistics.py of LMR-Bench): the task folder (a scratch
  copy, with the golden files put in place for the golden row) mounted at /workspace of
  the same image, ``cd <repo>; PYTHONPATH=$(pwd); for each unit_test/unit_test_*.py:
  python it``, then each ``<repo>/unit_test/logs/*.log`` passes when it holds at least
  one "Passed" and no "Failed"; a task passes when every log file does (and there is
  one). Differences from the published loop, all forced here: the network is off (their
  loop has it, but hub downloads cannot work here), each test file gets ``timeout S``,
  GPUs and a model cache only when given, and the user is the image's (UID 1000, as
  their loop gets by passing the host's own ids on a workstation);
* whether the two agree;
* whether our runs were isolated (the candidate in a process of its own, which the test
  calls through a proxy), or ran in the test's process because the golden code showed
  that the goal cannot cross (what could not cross is noted).

A leak table follows, per task and implementation: every copy of the golden goal
function a solver can read in the task (`validate`'s answer-leak rule: other modules,
notebooks, bytecode, build and backup copies, git history, code blocks, the paper), with
file and similarity, and the closest function that is not a copy (the near miss, from
0.5 up), so a reader can check both. ``--leaks`` prints only that table (no Docker).

With ``--mutants``, the test strength of every task whose golden code passes here: the
tests run on mutants of the golden goal function (`validate --run --mutants`), and one
table says per implementation how many are killed and which survive (a wrong answer that
passes).

The images stay (other commands reuse them); ``--work`` keeps the eval output and the
scratch copies for a look (default: a temporary folder, removed).

The run keys of the two systems (what a resumed ``eval`` keeps stored runs by) are
recorded and compared without Docker by ``benchmarks/published_run_keys.py``: a change
meant to change no behaviour must leave them equal.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from lmr_author.commands._provisions import gpu_request
from lmr_author.domain.benchmark import load_benchmark
from lmr_author.domain.task import Task
from lmr_author.domain.verdicts import worst_of
from lmr_author.images.task_images import DEFAULT_UID, ImageRef, ensure_image
from lmr_author.runtime.engine import RUNTIMES
from lmr_author.runtime.infra_error import InfraError
from lmr_author.sandbox.provisions import device_requests, hub_folder
from lmr_author.util import lfs
from lmr_author.util.errors import UserError

_PASSED = re.compile(r"Passed")
_FAILED = re.compile(r"Failed")


@dataclass
class Row:
    """One task's line of the table."""

    task: str
    runnable: str = "yes"
    build_s: float | None = None
    ours_golden: str = "-"
    ours_masked: str = "-"
    theirs_golden: str = "-"
    theirs_masked: str = "-"
    ours_s: float | None = None
    theirs_s: float | None = None
    #: "yes" when every run of ours was isolated, "no" when one ran in the test's process.
    isolated: str = "-"
    notes: list[str] = field(default_factory=list)

    @property
    def agrees(self) -> str:
        if self.ours_golden == "-" or self.theirs_golden == "-":
            return "-"
        same = _passed(self.ours_golden) == _passed(self.theirs_golden) and _passed(
            self.ours_masked
        ) == _passed(self.theirs_masked)
        return "yes" if same else "NO"


def _passed(verdict: str) -> bool:
    return verdict == "pass"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("benchmark", type=Path, metavar="BENCH")
    parser.add_argument("--base-image", metavar="IMG", help="required unless --leaks")
    parser.add_argument("--task", action="append", default=[], metavar="NAME")
    parser.add_argument("--timeout", type=float, default=600.0, metavar="S")
    parser.add_argument("--work", type=Path, metavar="DIR")
    parser.add_argument("--hf-cache", type=Path, metavar="DIR")
    parser.add_argument("--gpus", type=gpu_request, metavar="SPEC")
    parser.add_argument("--json", type=Path, metavar="FILE", help="also write the rows here")
    parser.add_argument(
        "--runtime",
        choices=RUNTIMES,
        default="docker",
        help="the runtime of our side (the published loop always runs in Docker)",
    )
    parser.add_argument(
        "--mutants", action="store_true", help="also print the benchmark's test strength"
    )
    parser.add_argument(
        "--leaks", action="store_true", help="print only the leak table (no Docker)"
    )
    args = parser.parse_args()
    if args.leaks:
        print_leak_table(args.benchmark, args.task)
        return 0
    if not args.base_image:
        parser.error("--base-image is required (unless --leaks)")
    try:
        rows = run(args)
    except UserError as error:
        print(error.render(), file=sys.stderr)
        return 2
    print_table(rows)
    print()
    print_leak_table(args.benchmark, args.task)
    if args.mutants:
        print()
        print_test_strength(args, [row.task for row in rows if row.ours_golden == "pass"])
    if args.json:
        args.json.write_text(json.dumps([asdict(r) | {"agrees": r.agrees} for r in rows], indent=2))
    return 0


def run(args: argparse.Namespace) -> list[Row]:
    import docker

    client = docker.from_env()
    loaded = load_benchmark(args.benchmark, args.task or None)
    rows = [Row(b.name, runnable=f"no: {b.reason}") for b in loaded.broken]
    hub = _hub(args)
    with tempfile.TemporaryDirectory() as scratch:
        work = args.work or Path(scratch)
        work.mkdir(parents=True, exist_ok=True)
        systems = _write_systems(loaded.tasks, work / "systems")
        for task in loaded.tasks:
            row = Row(task.name)
            rows.append(row)
            print(f"{task.name}: building the image on {args.base_image}…", file=sys.stderr)
            pointers = list(lfs.pointers_under(task.path))
            if pointers:
                row.notes.append(f"{len(pointers)} Git LFS pointer file(s)")
            started = time.monotonic()
            try:
                image = ensure_image(task, client=client, base_image=args.base_image)
            except InfraError as error:
                row.runnable = "no: the image does not build here"
                row.notes.append(error.message.splitlines()[0][:200])
                continue
            row.build_s = time.monotonic() - started
            print(f"{task.name}: ours…", file=sys.stderr)
            _ours(task, row, args, systems, work, hub)
            print(f"{task.name}: theirs…", file=sys.stderr)
            _theirs(task, row, image, client, args, work, hub)
            if pointers and row.runnable == "yes":
                row.runnable = "no: data are Git LFS pointers"
    return sorted(rows, key=lambda r: r.task)


def _write_systems(tasks: list[Task], root: Path) -> dict[str, Path]:
    """The golden files and the masked files as two mirrored-folder submissions."""
    systems = {"golden": root / "golden", "masked": root / "masked"}
    for task in tasks:
        for impl in task.implementations:
            for name, source in (("golden", impl.golden_path), ("masked", impl.goal_path)):
                target = systems[name] / task.name / task.repo_folder_name / impl.goal_file
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(source, target)
    return systems


def _ours(
    task: Task,
    row: Row,
    args: argparse.Namespace,
    systems: dict[str, Path],
    work: Path,
    hub: str | None,
) -> None:
    argv = [sys.executable, "-m", "lmr_author", "eval", str(args.benchmark), "--task", task.name]
    for system in systems.values():
        argv += ["-s", str(system)]
    argv += ["--output", str(work / "ours"), "--base-image", args.base_image, "--json"]
    argv += ["--timeout", str(args.timeout), "--workers", "2", "--runtime", args.runtime]
    if hub:
        argv += ["--hf-cache", hub]
    if args.gpus:
        argv += ["--gpus", args.gpus]
    started = time.monotonic()
    done = subprocess.run(argv, capture_output=True, text=True)
    row.ours_s = time.monotonic() - started
    try:
        results = json.loads(done.stdout)
    except ValueError:
        row.ours_golden = row.ours_masked = "?"
        row.notes.append("eval printed no JSON: " + done.stderr.strip()[-300:])
        return
    verdicts: dict[str, list[str]] = {}
    isolated: list[bool] = []
    for record in results.get("runs", []):
        if record.get("task") == task.name:
            verdicts.setdefault(record["system"], []).append(record["verdict"])
            if record["verdict"] == "infra-error" and record["system"] == "golden":
                row.runnable = "no: " + str(record.get("reason", ""))[:300]
            if isinstance(record.get("isolated"), bool):
                isolated.append(record["isolated"])
                why = str(record.get("not_isolated_why") or "")
                if why and record["system"] == "golden":
                    row.notes.append(f"not isolated: {why[:200]}")
    if isolated:
        row.isolated = "yes" if all(isolated) else "no"
    row.ours_golden = _worst(verdicts.get("golden", []))
    row.ours_masked = _worst(verdicts.get("masked", []))


def _worst(verdicts: list[str]) -> str:
    """The task's verdict over its implementations (`worst_of`); "?" when eval gave none."""
    return worst_of(verdicts) if verdicts else "?"


def _theirs(
    task: Task,
    row: Row,
    image: ImageRef,
    client: Any,
    args: argparse.Namespace,
    work: Path,
    hub: str | None,
) -> None:
    total = 0.0
    for label in ("golden", "masked"):
        copy = work / "theirs" / label / task.name
        if copy.exists():
            shutil.rmtree(copy)
        shutil.copytree(task.path, copy, symlinks=True, ignore=shutil.ignore_patterns(".git"))
        if label == "golden":
            for impl in task.implementations:
                shutil.copyfile(impl.golden_path, copy / task.repo_folder_name / impl.goal_file)
        # Their loop mounts the task folder for the host user, whom the image's USER is.
        subprocess.run(["chown", "-R", f"{DEFAULT_UID}:{DEFAULT_UID}", str(copy)], check=True)
        started = time.monotonic()
        status = _published_run(client, image, copy, task.repo_folder_name, args, hub)
        total += time.monotonic() - started
        verdict = _published_statistics(copy / task.repo_folder_name / "unit_test" / "logs")
        if status == "timeout":
            verdict = "timeout"
        if label == "golden":
            row.theirs_golden = verdict
        else:
            row.theirs_masked = verdict
    row.theirs_s = total


def _published_run(
    client: Any,
    image: ImageRef,
    folder: Path,
    repo: str,
    args: argparse.Namespace,
    hub: str | None,
) -> str:
    """The published loop's ``docker run`` of one task folder; "ok" or "timeout"."""
    per_file = int(args.timeout)
    script = (
        f"cd {repo} && export PYTHONPATH=$(pwd) && mkdir -p /workspace/results && "
        "for pyf in unit_test/unit_test_*.py; do "
        f'timeout {per_file} python "$pyf" > /workspace/results/"$(basename "$pyf" .py)".log 2>&1; '
        "done"
    )
    volumes = {str(folder): {"bind": "/workspace", "mode": "rw"}}
    if hub:
        volumes[hub] = {"bind": "/home/user/.cache/huggingface/hub", "mode": "ro"}
    container = client.containers.create(
        image.image_id,
        ["bash", "-lc", script],
        user=f"{DEFAULT_UID}:{DEFAULT_UID}",
        volumes=volumes,
        environment={"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"},
        network_mode="none",
        device_requests=device_requests(args.gpus),
        working_dir="/workspace",
    )
    try:
        container.start()
        try:
            container.wait(timeout=per_file * 20 + 60)
        except Exception:
            container.kill()
            return "timeout"
        return "ok"
    finally:
        container.remove(force=True)


def _published_statistics(logs: Path) -> str:
    """get_statistics.py's rule: every log file has a "Passed" and no "Failed"."""
    if not logs.is_dir():
        return "fail"
    verdicts = []
    for path in sorted(logs.iterdir()):
        if path.suffix != ".log":
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            verdicts.append(False)
            continue
        verdicts.append(not _FAILED.search(text) and bool(_PASSED.search(text)))
    return "pass" if verdicts and all(verdicts) else "fail"


def print_test_strength(args: argparse.Namespace, names: list[str]) -> None:
    """`validate --run --mutants` of the tasks ``names`` (images built, proofs kept by the
    eval above), as one table: where a wrong answer passes the published tests."""
    from rich.console import Console

    from lmr_author.commands._mutants import print_mutation_reports
    from lmr_author.mutation.score import mutation_test
    from lmr_author.sandbox.limits import Limits

    limits = Limits(timeout_s=args.timeout, gpus=args.gpus, hf_cache=_hub(args))
    reports = []
    for task in load_benchmark(args.benchmark, names or None).tasks if names else []:
        print(f"{task.name}: mutants…", file=sys.stderr)
        reports += mutation_test(task, base_image=args.base_image, limits=limits)
    print_mutation_reports(reports, out=Console(), verbose=False)


def print_leak_table(bench: Path, names: list[str]) -> None:
    """Per task and implementation: the copies of the goal a solver can read, and the
    closest function that is not one (what `validate`'s answer-leak rule decides on)."""
    from lmr_author.leaks.task_copies import task_copies

    loaded = load_benchmark(bench, names or None)
    print("leaks: copies of the golden goal function a solver can read")
    header = (
        f"{'task':<28} {'impl':>4}  {'verdict':<22} "
        "copies (level kind file [where] function: score)"
    )
    print(header)
    print("-" * len(header))
    clean = leaky = 0
    for broken in loaded.broken:
        print(f"{broken.name:<28} {'-':>4}  {'not loaded':<22} {broken.reason[:100]}")
    for task in loaded.tasks:
        print(f"{task.name}: comparing…", file=sys.stderr)
        found = task_copies(task, floor=0.5)
        for impl in task.implementations:
            mine = [c for c in found if c.implementation == impl.index]
            copies = [c for c in mine if c.level]
            near = [c for c in mine if not c.level]
            errors = sum(c.level == "error" for c in copies)
            verdict = f"{errors} errors, {len(copies) - errors} warnings" if copies else "clean"
            if copies:
                leaky += 1
            else:
                clean += 1
            lines = [
                f"{c.level:<7} {c.kind:<9} {c.file} [{c.where}] {c.function or '(code)'}: "
                f"{c.describe()}"
                for c in copies
            ]
            if near:
                best = max(near, key=lambda c: c.strength)
                lines.append(
                    f"closest other: {best.kind} {best.file} [{best.where}] "
                    f"{best.function or '(code)'}: {best.describe()}"
                )
            else:
                lines.append("closest other: none from 0.5 up")
            print(f"{task.name:<28} {impl.index:>4}  {verdict:<22} {lines[0]}")
            for line in lines[1:]:
                print(f"{'':<28} {'':>4}  {'':<22} {line}")
    print()
    print(
        f"{clean + leaky} implementations compared: {clean} clean, {leaky} with copies; "
        f"{len(loaded.broken)} task(s) not loaded"
    )


def _hub(args: argparse.Namespace) -> str | None:
    return str(hub_folder(args.hf_cache)) if args.hf_cache else None


def print_table(rows: list[Row]) -> None:
    header = (
        f"{'task':<28} {'golden ours/theirs':<19} {'masked ours/theirs':<19} "
        f"{'agree':<5} {'isolated':<8} {'wall s ours/theirs':<18} runnable here"
    )
    print(header)
    print("-" * len(header))
    for r in rows:
        wall = "-" if r.ours_s is None else f"{r.ours_s:.0f}/{(r.theirs_s or 0):.0f}"
        print(
            f"{r.task:<28} {r.ours_golden + '/' + r.theirs_golden:<19} "
            f"{r.ours_masked + '/' + r.theirs_masked:<19} {r.agrees:<5} {r.isolated:<8} "
            f"{wall:<18} "
            f"{r.runnable}{'; ' + '; '.join(r.notes) if r.notes else ''}"
        )
    ran = [r for r in rows if r.agrees != "-"]
    runnable = [r for r in rows if r.runnable == "yes"]
    print()
    print(
        f"{len(rows)} tasks: {len(runnable)} runnable here; of {len(ran)} run both ways, "
        f"{sum(r.agrees == 'yes' for r in ran)} agree; golden passes ours "
        f"{sum(r.ours_golden == 'pass' for r in rows)}, theirs "
        f"{sum(r.theirs_golden == 'pass' for r in rows)}; masked fails ours "
        f"{sum(r.ours_masked not in ('pass', '-', '?') for r in rows)}, theirs "
        f"{sum(r.theirs_masked not in ('pass', '-') for r in rows)}; isolated "
        f"{sum(r.isolated == 'yes' for r in rows)}, in the test's process "
        f"{sum(r.isolated == 'no' for r in rows)}"
    )


if __name__ == "__main__":
    sys.exit(main())
