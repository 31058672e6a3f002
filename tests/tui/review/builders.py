"""Build eval output folders in the shared format (runs, candidates, judgments) without Docker."""

from __future__ import annotations

import json
from pathlib import Path

from lmr_author.eval_output import file_sha256 as candidate_sha256

TASK = "01-Toy"
SYSTEMS = ("correct", "no_agent-gpt4o")

GOLDEN = '''\
"""Toy model."""


def add(a, b):
    """Add two numbers."""
    return a + b


class Scaler:
    def __init__(self, factor):
        self.factor = factor

    def scale(self, values):
        """Multiply every value by the factor."""
        return [v * self.factor for v in values]
'''

MASKED = GOLDEN.replace("    return a + b\n", "    # TODO: implement\n    pass\n").replace(
    "        return [v * self.factor for v in values]\n",
    "        # TODO: implement\n        pass\n",
)

WRONG = GOLDEN.replace("return a + b", "return a - b").replace(
    "return [v * self.factor for v in values]",
    "out = []\n"
    "        for v in values:\n"
    "            out.append(v + self.factor)\n"
    "        return out",
)

#: A candidate with lines far longer than a pane, to show wrapping and sideways scrolling.
LONG = WRONG.replace(
    "        return out",
    "        scaled_values_with_a_long_name = [value_to_scale * self.factor for value_to_scale "
    "in out if value_to_scale is not None and not isinstance(value_to_scale, str)]  # noqa\n"
    "        return scaled_values_with_a_long_name",
)

INFO = {
    "instance_id": 1,
    "paper_name": "Toy paper",
    "folder_name": TASK,
    "paper_url": "",
    "year": 2024,
    "repo_url": "",
    "repo_folder_name": "toy_repo",
    "implementations": [
        {
            "instruction": "Implement add: return the sum of a and b.",
            "index": 1,
            "category": "Data Processing",
            "goal_file": "toy/model.py",
            "goal_function": "add",
            "class_name": "",
            "golden_file": "golden_files/model_golden.py",
            "retrieval_context": [],
            "unit_test_file": "unit_test/unit_test_1.py",
        },
        {
            "instruction": "Implement Scaler.scale: multiply each value by the factor.",
            "index": 2,
            "category": "Data Processing",
            "goal_file": "toy/model.py",
            "goal_function": "scale",
            "class_name": "Scaler",
            "golden_file": "golden_files/model_golden.py",
            "retrieval_context": [],
            "unit_test_file": "unit_test/unit_test_2.py",
        },
    ],
}


def write_benchmark(root: Path) -> Path:
    """A one-task benchmark folder: info.json, golden file, masked repository."""
    task_dir = root / TASK
    (task_dir / "golden_files").mkdir(parents=True)
    (task_dir / "golden_files" / "model_golden.py").write_text(GOLDEN)
    (task_dir / "toy_repo" / "toy").mkdir(parents=True)
    (task_dir / "toy_repo" / "toy" / "model.py").write_text(MASKED)
    (task_dir / "info.json").write_text(json.dumps(INFO, indent=4))
    return root


def write_run(
    output: Path,
    system: str,
    implementation: int,
    candidate: str,
    *,
    verdict: str,
    judge_label: str | None = None,
) -> None:
    """One run folder (run.json + candidate.py) and, if asked, its judgment."""
    impl = INFO["implementations"][implementation - 1]  # type: ignore[index]
    run_dir = output / "runs" / system / TASK / str(implementation)
    run_dir.mkdir(parents=True)
    (run_dir / "candidate.py").write_text(candidate)
    sha = candidate_sha256(run_dir / "candidate.py")
    run = {
        "schema_version": 1,
        "run_key": f"{system}/{TASK}/{implementation}",
        "system": system,
        "task": TASK,
        "implementation": implementation,
        "category": impl["category"],
        "goal_file": impl["goal_file"],
        "goal_function": impl["goal_function"],
        "class_name": impl["class_name"],
        "candidate_sha256": sha,
        "image_id": "sha256:0",
        "verdict": verdict,
        "tests": [],
        "started_at": "2026-01-01T00:00:00Z",
        "duration_s": 1.0,
    }
    (run_dir / "run.json").write_text(json.dumps(run, indent=4))
    if judge_label is not None:
        category = {"LI": 1, "LC": 2, "CC": 3}[judge_label]
        judgment_dir = output / "judgments" / system / TASK
        judgment_dir.mkdir(parents=True, exist_ok=True)
        judgment = {
            "schema_version": 1,
            "system": system,
            "task": TASK,
            "implementation": implementation,
            "candidate_sha256": sha,
            "category": category,
            "label": judge_label,
            "rationale": [],
            "raw": "",
            "model": "judge-model",
            "endpoint": "http://127.0.0.1:1/v1",
            "scope": "function",
            "prompt_sha256": "0" * 64,
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
            "cached": False,
        }
        (judgment_dir / f"{implementation}.json").write_text(json.dumps(judgment, indent=4))


def write_results(root: Path) -> Path:
    """An eval output folder with 4 items: 2 systems x 1 task x 2 implementations."""
    benchmark = write_benchmark(root / "benchmark")
    output = root / "lmr-results"
    output.mkdir()
    (output / "results.json").write_text(
        json.dumps({"schema_version": 1, "benchmark": str(benchmark), "systems": {}, "runs": []})
    )
    write_run(output, "correct", 1, GOLDEN, verdict="pass", judge_label="CC")
    write_run(output, "correct", 2, GOLDEN, verdict="pass", judge_label="CC")
    write_run(output, "no_agent-gpt4o", 1, WRONG, verdict="fail", judge_label="LI")
    write_run(output, "no_agent-gpt4o", 2, WRONG, verdict="fail")
    return output


def rerun(output: Path, system: str, implementation: int, candidate: str) -> None:
    """What a new 'lmr-author eval' of one run leaves: a new candidate and its new hash."""
    run_dir = output / "runs" / system / TASK / str(implementation)
    (run_dir / "candidate.py").write_text(candidate)
    run = json.loads((run_dir / "run.json").read_text())
    run["candidate_sha256"] = candidate_sha256(run_dir / "candidate.py")
    (run_dir / "run.json").write_text(json.dumps(run, indent=4))
