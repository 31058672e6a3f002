"""Tiny task folders for the validator tests (the fixtures are in conftest.py).

`make_task` writes a complete, valid task (info.json, Dockerfile, golden file, masked
goal file, unit test, paper.pdf) and lets a test break exactly one thing.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from lmr_author.validate.findings import Finding
from lmr_author.validate.static import validate_task

REPO = "dpo-repo"

GOLDEN = '''\
import math


def helper(x):
    return x + 1


def preference_loss(chosen, rejected, beta=0.1):
    """The DPO loss of one pair."""
    margin = beta * (chosen - rejected)
    return -math.log(1.0 / (1.0 + math.exp(-margin)))


class Trainer:
    def step(self, x):
        return helper(x) * 2
'''

MASKED = '''\
import math


def helper(x):
    return x + 1


def preference_loss(chosen, rejected, beta=0.1):
    """The DPO loss of one pair."""
    # TODO: implement the DPO loss described in the paper.
    raise NotImplementedError


class Trainer:
    def step(self, x):
        return helper(x) * 2
'''

UNIT_TEST = """\
from trainers import preference_loss


def main():
    value = preference_loss(1.0, 0.0, beta=1.0)
    assert abs(value - 0.31326168751822286) < 1e-9, value


if __name__ == "__main__":
    main()
"""

DOCKERFILE = f"""\
FROM python:3.11-slim
ARG DIR={REPO}
RUN pip install numpy
COPY ${{DIR}} /workspace/${{DIR}}
WORKDIR /workspace/${{DIR}}
"""


def base_info(name: str) -> dict[str, Any]:
    return {
        "instance_id": 1,
        "paper_name": "Direct Preference Optimization",
        "folder_name": name,
        "paper_url": "https://arxiv.org/pdf/2305.18290",
        "year": 2023,
        "repo_url": "https://example.invalid/dpo",
        "repo_folder_name": REPO,
        "implementations": [
            {
                "instruction": "Implement preference_loss in trainers.py.",
                "index": 1,
                "category": "Training Objectives & Optimization",
                "goal_file": "trainers.py",
                "goal_function": "preference_loss",
                "class_name": "",
                "golden_file": "golden_files/trainers_golden.py",
                "retrieval_context": [],
                "unit_test_file": "unit_test/unit_test_1.py",
            }
        ],
    }


FileContent = str | bytes | None


class MakeTask(Protocol):
    def __call__(
        self,
        name: str = ...,
        *,
        info: Callable[[dict[str, Any]], None] | None = ...,
        files: dict[str, FileContent] | None = ...,
        raw_info: str | bytes | None = ...,
        parent: Path | None = ...,
    ) -> Path: ...


def build_task(
    root: Path,
    name: str = "01-DPO",
    *,
    info: Callable[[dict[str, Any]], None] | None = None,
    files: dict[str, FileContent] | None = None,
    raw_info: str | bytes | None = None,
) -> Path:
    """Write a valid task ``root/name``; ``info`` edits info.json, ``files`` overrides files.

    ``files`` maps paths relative to the task folder to text, bytes, or None (delete).
    ``raw_info`` replaces info.json with exactly these bytes.
    """
    task = root / name
    data = base_info(name)
    if info is not None:
        info(data)
    contents: dict[str, FileContent] = {
        "info.json": json.dumps(data, indent=4) if raw_info is None else raw_info,
        "Dockerfile": DOCKERFILE,
        "golden_files/trainers_golden.py": GOLDEN,
        f"{REPO}/trainers.py": MASKED,
        f"{REPO}/unit_test/unit_test_1.py": UNIT_TEST,
        f"{REPO}/paper.pdf": b"%PDF-1.4\n%fake\n",
    }
    contents.update(files or {})
    for relative, content in contents.items():
        path = task / relative
        if content is None:
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return task


def findings_of(task: Path, rule: str | None = None, **options: Any) -> list[Finding]:
    """The findings of one task, optionally only those of ``rule``."""
    found = validate_task(task, **options).findings
    assert not [f for f in found if f.rule == "internal-error"], found
    return [f for f in found if rule is None or f.rule == rule]
