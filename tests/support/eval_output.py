"""Build small eval output folders (shared format) and their benchmark, without Docker.

The judge, the label tools and the agreement statistics all read
``OUTPUT/runs/<system>/<task>/<index>/{run.json,candidate.py}`` and ``results.json``;
tests build such folders here instead of running the evaluator.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from lmr_author.eval_output import (
    CANDIDATE_FILE,
    RESULTS_FILE,
    RUN_FILE,
    candidate_sha256,
    run_dir,
)

GOAL_FILE = "toy.py"
GOLDEN_FILE = "golden_files/toy_golden.py"

GOLDEN_SOURCE = '''"""A toy goal file."""


def helper(x):
    return x + 1


def scale(values, factor):
    """Multiply every value by factor."""
    return [v * factor for v in values]
'''

MASKED_SOURCE = GOLDEN_SOURCE.replace(
    "    return [v * factor for v in values]\n", "    raise NotImplementedError\n"
)


def candidate_source(variant: int | str) -> str:
    """A candidate goal file; each ``variant`` gives a different function body."""
    return GOLDEN_SOURCE.replace(
        "    return [v * factor for v in values]\n",
        f"    offset = {variant!r}  # variant\n    return [v * factor for v in values]\n",
    )


def write_task(benchmark: Path, name: str = "01-Toy", implementations: int = 1) -> Path:
    """A minimal task folder: info.json, golden file, masked repository, a unit test."""
    task = benchmark / name
    repo = task / "toy-repo"
    (task / "golden_files").mkdir(parents=True, exist_ok=True)
    (repo / "unit_test").mkdir(parents=True, exist_ok=True)
    (task / GOLDEN_FILE).write_text(GOLDEN_SOURCE)
    (repo / GOAL_FILE).write_text(MASKED_SOURCE)
    # A placeholder test: these tasks are read (reports, predictions), never run.
    (repo / "unit_test" / "unit_test_1.py").write_text("from toy import scale\n")
    impls = [
        {
            "instruction": f"Implement scale in toy.py (implementation {index}).",
            "index": index,
            "category": "Evaluation Metrics",
            "goal_file": GOAL_FILE,
            "goal_function": "scale",
            "class_name": "",
            "golden_file": GOLDEN_FILE,
            "retrieval_context": [],
            "unit_test_file": "unit_test/unit_test_1.py",
        }
        for index in range(1, implementations + 1)
    ]
    info = {
        "instance_id": int(name.split("-")[0]),
        "paper_name": "Toy paper",
        "folder_name": name,
        "repo_folder_name": "toy-repo",
        "implementations": impls,
    }
    (task / "info.json").write_text(json.dumps(info, indent=2))
    return task


@dataclass(frozen=True)
class RunSpec:
    system: str
    task: str = "01-Toy"
    implementation: int = 1
    verdict: str = "pass"
    candidate: str = ""
    reason: str = ""


def write_run(output: Path, spec: RunSpec) -> Path:
    """``runs/<system>/<task>/<index>/run.json`` and ``candidate.py``; returns the folder."""
    folder = run_dir(output, spec.system, spec.task, spec.implementation)
    folder.mkdir(parents=True, exist_ok=True)
    candidate = spec.candidate or candidate_source(f"{spec.system}/{spec.task}")
    (folder / CANDIDATE_FILE).write_text(candidate)
    run = {
        "schema_version": 1,
        "run_key": f"{spec.system}/{spec.task}/{spec.implementation}",
        "system": spec.system,
        "task": spec.task,
        "implementation": spec.implementation,
        "category": "Evaluation Metrics",
        "goal_file": GOAL_FILE,
        "goal_function": "scale",
        "class_name": "",
        "candidate_sha256": candidate_sha256(candidate.encode()),
        "image_id": "sha256:0",
        "verdict": spec.verdict,
        "reason": spec.reason,
        "tests": [],
        "started_at": "2026-01-01T00:00:00+00:00",
        "duration_s": 1.0,
    }
    (folder / RUN_FILE).write_text(json.dumps(run, indent=2))
    return folder


def build_eval_output(
    root: Path, runs: list[RunSpec], *, tasks: dict[str, int] | None = None
) -> Path:
    """A benchmark (``root/benchmark``) and an eval output (``root/out``) holding ``runs``.

    ``tasks`` maps task folder names to their number of implementations (default: every
    task named in ``runs``, with as many implementations as the runs use).
    """
    benchmark = root / "benchmark"
    wanted: dict[str, int] = dict(tasks or {})
    if tasks is None:
        for spec in runs:
            wanted[spec.task] = max(wanted.get(spec.task, 1), spec.implementation)
    for name, count in wanted.items():
        write_task(benchmark, name, count)
    output = root / "out"
    output.mkdir(parents=True, exist_ok=True)
    results = {"schema_version": 1, "benchmark": str(benchmark), "systems": {}, "runs": []}
    (output / RESULTS_FILE).write_text(json.dumps(results, indent=2))
    for spec in runs:
        write_run(output, spec)
    return output
