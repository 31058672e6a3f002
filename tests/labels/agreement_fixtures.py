"""Builders of small eval output folders, label stores and label files for the tests."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from lmr_author.labels import Label, LabelStore

SYSTEM = "no_agent-gpt4o"

#: item -> (verdict, judge category or None for unparsed)
RUNS = {
    ("01-DPO", 1): ("pass", 3),
    ("01-DPO", 2): ("fail", 1),
    ("05-SimPO", 1): ("pass", 3),
    ("16-KnowProb", 1): ("fail", 2),
    ("16-KnowProb", 2): ("fail", 1),
    ("16-KnowProb", 3): ("fail", None),
    ("05-SimPO", 2): ("fail", 1),
}
ANN = {
    ("01-DPO", 1): 3,
    ("01-DPO", 2): 1,
    ("05-SimPO", 1): 2,
    ("16-KnowProb", 1): 2,
    ("16-KnowProb", 2): 3,
    ("16-KnowProb", 3): 1,
}
#: bob's labels in the published shape: paper_index, function_index (from 0), label.
BOB = [(1, 0, 3), (1, 1, 2), (5, 0, 2), (16, 0, 2), (16, 1, 3)]


def sha(task: str, index: int) -> str:
    return hashlib.sha256(f"candidate {task} {index}".encode()).hexdigest()


def write_eval_output(root: Path) -> Path:
    """An eval output folder in the shared format: results.json, runs/, judgments/."""
    out = root / "lmr-results"
    (out).mkdir(parents=True)
    (out / "results.json").write_text(
        json.dumps({"schema_version": 1, "benchmark": str(root), "systems": {}, "runs": []})
    )
    for (task, index), (verdict, category) in RUNS.items():
        run_dir = out / "runs" / SYSTEM / task / str(index)
        run_dir.mkdir(parents=True)
        (run_dir / "candidate.py").write_text(f"candidate {task} {index}")
        (run_dir / "run.json").write_text(
            json.dumps(
                {
                    "schema_version": 1,
                    "run_key": f"{SYSTEM}/{task}/{index}",
                    "system": SYSTEM,
                    "task": task,
                    "implementation": index,
                    "candidate_sha256": sha(task, index),
                    "verdict": verdict,
                    "tests": [],
                }
            )
        )
        judgment = out / "judgments" / SYSTEM / task / f"{index}.json"
        judgment.parent.mkdir(parents=True, exist_ok=True)
        judgment.write_text(
            json.dumps(
                {
                    "schema_version": 1,
                    "run_key": f"{SYSTEM}/{task}/{index}",
                    "system": SYSTEM,
                    "task": task,
                    "implementation": index,
                    "candidate_sha256": sha(task, index),
                    "category": category,
                    "label": {1: "LI", 2: "LC", 3: "CC", None: "unparsed"}[category],
                    "rationale": [],
                    "raw": "",
                    "model": "test",
                    "endpoint": "",
                    "scope": "function",
                    "prompt_sha256": "",
                    "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
                    "cached": False,
                }
            )
        )
    return out


def write_store(path: Path) -> Path:
    """ann's labels (with candidate hashes) and one stale label of bob."""
    with LabelStore(path) as store:
        for (task, index), value in ANN.items():
            store.add(
                Label(
                    "ann",
                    SYSTEM,
                    task,
                    index,
                    value,
                    comment=f"c{value}",
                    candidate_sha256=sha(task, index),
                )
            )
        store.add(Label("bob", SYSTEM, "16-KnowProb", 3, 3, candidate_sha256="0" * 64))
    return path


def write_bob_file(path: Path) -> Path:
    records = [
        {
            "annotator": "bob",
            "agent_type": "no_agent",
            "model_name": "gpt4o",
            "paper_index": paper,
            "function_index": function,
            "human_judge_result": value,
            "comment": "",
        }
        for paper, function, value in BOB
    ]
    path.write_text(json.dumps(records, indent=4))
    return path


def write_published_scale(root: Path, seed: int = 0) -> tuple[Path, Path]:
    """The published results' size: 2 settings x 3 models x 28 tasks, 2 annotators.

    Returns (published judge-output folder, published-shape human label file).
    """
    import random

    rng = random.Random(seed)
    judges = root / "published"
    records = []
    for folder, agent_type in (("BaseAgent", "no_agent"), ("OpenHands", "openhands_agent")):
        for model in ("gpt4o", "gpt4.1", "o4mini"):
            out = judges / folder / model
            out.mkdir(parents=True, exist_ok=True)
            for paper in range(1, 29):
                truth = rng.choice([1, 1, 1, 2, 3, 3])
                judged = truth if rng.random() < 0.65 else rng.choice([1, 2, 3])
                body = json.dumps({"category": str(judged), "rationale": ["r"]})
                (out / f"{paper}-Task{paper}_repo_x_0_analysis.txt").write_text(body)
                for annotator in ("A", "B"):
                    value = truth if rng.random() < 0.8 else rng.choice([1, 2, 3])
                    records.append(
                        {
                            "annotator": annotator,
                            "agent_type": agent_type,
                            "model_name": model,
                            "paper_index": paper,
                            "function_index": 0,
                            "human_judge_result": value,
                            "comment": "",
                        }
                    )
    human = root / "human.json"
    human.write_text(json.dumps(records))
    return judges, human
