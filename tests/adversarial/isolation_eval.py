"""Scoring hostile candidates with ``lmr-author eval`` as a user runs it (issue 29).

Candidates go in as a user's submissions: goal functions in a predictions JSONL (spliced
into the masked goal files) and whole goal files in mirrored folders. ``eval`` runs as
a subprocess, so that whatever a candidate does to it (crash it, hang it) is seen as a
user would see it: its exit status, its ``results.json`` and the run records on disk.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.adversarial.isolation_forgeries import function_candidate
from tests.support.isolation_tasks import REPO, Goal

#: Verdicts that are a hostile candidate's own failure.
FAILED = frozenset({"fail", "error"})


def candidate_for(goal: Goal, snippet: str) -> str:
    """``snippet`` run inside ``goal``'s function, after its wrong computation."""
    return function_candidate(
        function=goal.function,
        params=goal.params,
        call=goal.call,
        wrong=goal.wrong,
        snippet=snippet,
        kind=goal.kind,
    )


def write_predictions(path: Path, task_dir: Path, lines: list[tuple[str, int, str]]) -> Path:
    """A predictions JSONL of ``(system, implementation, source)`` lines."""
    with open(path, "w", encoding="utf-8") as handle:
        for system, index, source in lines:
            record = {"task": task_dir.name, "implementation": index, "system": system}
            handle.write(json.dumps({**record, "source": source}) + "\n")
    return path


def write_mirrored(root: Path, system: str, task_dir: Path, files: dict[str, str]) -> Path:
    """A mirrored-folder submission ``root/system`` with whole goal files (name -> text)."""
    for goal_file, text in files.items():
        target = root / system / task_dir.name / REPO / goal_file
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return root / system


@dataclass
class Evaluation:
    """What one ``lmr-author eval`` left: exit status, output, and every run on disk."""

    status: int
    stderr: str
    results_written: bool
    runs: dict[tuple[str, int], dict[str, Any]] = field(default_factory=dict)

    def verdict(self, system: str, index: int) -> str:
        run = self.runs.get((system, index))
        return "missing" if run is None else str(run.get("verdict"))

    def reason(self, system: str, index: int) -> str:
        return str((self.runs.get((system, index)) or {}).get("reason", ""))


def run_eval(bench: Path, submissions: list[Path], out: Path, *, timeout_s: int = 60) -> Evaluation:
    """``lmr-author eval`` of ``submissions`` on ``bench`` into ``out`` (resumes if there)."""
    argv = [sys.executable, "-m", "lmr_author", "eval", str(bench), "--output", str(out)]
    for submission in submissions:
        argv += ["-s", str(submission)]
    argv += ["--workers", "2", "--timeout", str(timeout_s), "--json"]
    done = subprocess.run(
        argv, capture_output=True, text=True, errors="replace", env=dict(os.environ), timeout=3000
    )
    evaluation = Evaluation(done.returncode, done.stderr, (out / "results.json").is_file())
    # The records on disk, whatever eval printed: a crashed eval prints nothing.
    for path in sorted((out / "runs").glob("*/*/*/run.json")):
        try:
            record = json.loads(path.read_text(encoding="utf-8", errors="replace"))
        except ValueError:
            continue
        evaluation.runs[(str(record["system"]), int(record["implementation"]))] = record
    return evaluation


def table(evaluation: Evaluation, expected: list[tuple[str, int]]) -> str:
    """The runs as a table: system, implementation, verdict, reason (cut)."""
    lines = [f"eval exit {evaluation.status}; results.json written: {evaluation.results_written}"]
    for system, index in expected:
        reason = " ".join(evaluation.reason(system, index).split())[:160]
        lines.append(f"{system:<48} {index} {evaluation.verdict(system, index):<11} {reason}")
    if evaluation.status != 0:
        lines.append("stderr: " + evaluation.stderr[-1500:])
    return "\n".join(lines)


def not_passed(
    evaluation: Evaluation, expected: list[tuple[str, int]], allowed: dict[str, frozenset[str]]
) -> list[str]:
    """The runs whose verdict is not allowed (default: fail or error), described."""
    wrong = []
    for system, index in expected:
        verdict = evaluation.verdict(system, index)
        if verdict not in allowed.get(system, FAILED):
            wrong.append(f"{system} #{index}: {verdict} ({evaluation.reason(system, index)[:300]})")
    return wrong
