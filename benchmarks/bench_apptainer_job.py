"""Benchmark of Apptainer runs inside Slurm jobs: the sample benchmark's wall time.

Scores the bundled sample benchmark (``--task`` narrows it) for its three systems
through Slurm with ``--runtime apptainer``, ``--repeat`` times with a fresh output each
time (every run executes), and prints the wall times, their median, the verdicts and
how the runs were limited: in a child of the job's cgroup (`lmr_author.sandbox.
run_cgroup`, where the code has it) or by Apptainer's own flags. As root on cgroups v1
each worker is started the way ``task/cgroup`` starts a job (in a memory cgroup
``.../slurm/uid_0/job_<id>``), since this cluster confines no job. Images are built and
converted before timing. To compare with an older version, run this file with that
version's package first on PYTHONPATH. Needs Slurm (.ci/slurm-setup), Apptainer
(.ci/apptainer-setup) and Docker. From the repository root:

    python benchmarks/bench_apptainer_job.py [--task 02-BLEU --task 03-TopP] [--repeat 3]

Exit code 1 when the verdicts are not the designed ones (only the correct system passes).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import sys
import tempfile
import time
import uuid
from collections import Counter
from pathlib import Path

import lmr_author
from lmr_author.eval_loop.backend import DockerBackend
from lmr_author.eval_loop.pool import run_evaluation
from lmr_author.eval_loop.submissions import Submission
from lmr_author.executors.slurm import SlurmBackend
from lmr_author.runtime import engine
from lmr_author.sandbox.apptainer import SIF_CACHE_ENV

ROOT = Path(__file__).resolve().parents[1]
BENCHMARK = ROOT / "benchmark"
SYSTEMS = {"correct": "pass", "subtle-bug": "fail", "wrong-logic": "fail"}
MEMORY = Path("/sys/fs/cgroup/memory")
CONFINED_PYTHON = """\
#!/bin/sh
job={root}/slurm/uid_0/job_$SLURM_JOB_ID
mkdir -p {memory}$job && echo $$ > {memory}$job/cgroup.procs || exit 1
exec {python} "$@"
"""


def _evaluate(out: Path, tasks: list[str], python: str) -> tuple[float, list[tuple[str, str]]]:
    backend = SlurmBackend(DockerBackend(), out / "shared", python=python)
    begun = time.monotonic()
    try:
        results = run_evaluation(
            BENCHMARK,
            [Submission(BENCHMARK / "submissions" / system) for system in SYSTEMS],
            out / "results",
            tasks=tasks,
            backend=backend,
        )
    finally:
        backend.close()
    took = time.monotonic() - begun
    return took, [(run.system, run.verdict) for run in results.runs]


def _remove_tree(root: Path) -> None:
    for folder in sorted(root.glob("**/"), key=lambda p: len(p.parts), reverse=True):
        folder.rmdir()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", action="append", default=[])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    tasks = args.task or ["02-BLEU", "03-TopP"]
    confined = os.geteuid() == 0 and os.access(MEMORY, os.W_OK)
    job_root = f"/lmr-bench-{uuid.uuid4().hex[:8]}"
    engine.use_runtime("apptainer")
    walls: list[float] = []
    designed = True
    with tempfile.TemporaryDirectory(prefix="bench-apptainer-job-") as scratch:
        folder = Path(scratch)
        os.environ.setdefault(SIF_CACHE_ENV, str(folder / "sif"))  # the jobs inherit it
        python = sys.executable
        if confined:
            python = str(folder / "confined-python")
            Path(python).write_text(
                CONFINED_PYTHON.format(root=job_root, memory=MEMORY, python=sys.executable)
            )
            Path(python).chmod(0o755)
        try:
            _evaluate(folder / "warm", tasks, python)  # builds and converts: not timed
            load_before = os.getloadavg()
            for turn in range(args.repeat):
                took, verdicts = _evaluate(folder / f"turn{turn}", tasks, python)
                walls.append(took)
                designed = designed and all(
                    (v == "pass") == (SYSTEMS[s] == "pass") for s, v in verdicts
                )
            load_after = os.getloadavg()
        finally:
            if confined and (MEMORY / job_root.lstrip("/")).is_dir():
                _remove_tree(MEMORY / job_root.lstrip("/"))
    has_child = importlib.util.find_spec("lmr_author.sandbox.run_cgroup") is not None
    limited = "Apptainer's own flags"
    if confined and has_child:
        limited = "a child of the job's cgroup"
    print(f"package: {Path(lmr_author.__file__).parent}")
    print(f"jobs confined in a memory cgroup: {'yes' if confined else 'no'}")
    print(f"runs limited by: {limited}")
    print("load average (1, 5, 15 min) before: " + ", ".join(f"{x:.2f}" for x in load_before))
    print("load average (1, 5, 15 min) after:  " + ", ".join(f"{x:.2f}" for x in load_after))
    print(f"runs per evaluation: {len(verdicts)} ({dict(Counter(v for _, v in verdicts))})")
    print("each: " + ", ".join(f"{x:.2f}" for x in walls) + " s")
    print(f"median: {statistics.median(walls):.2f} s")
    print(f"designed verdicts: {'yes' if designed else 'NO'}")
    return 0 if designed else 1


if __name__ == "__main__":
    sys.exit(main())
