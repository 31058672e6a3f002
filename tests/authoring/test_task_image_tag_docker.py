"""The task image's tag, as Save and eval compute it: the metadata written into info.json
after a task was proven (scores, equivalent mutants, timestamps) leaves it as it was, so
the proven image is the one eval finds; every build input still changes it."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from lmr_author.domain.task import INFO_FILE, Task, load_task
from lmr_author.domain.test_strength import EQUIVALENTS_KEY, MUTATION_SCORE_KEY
from lmr_author.images.task_images import plan_build

pytestmark = pytest.mark.docker  # the base image's id is part of the tag; nothing is built


def test_metadata_keeps_the_tag_and_every_build_input_changes_it(
    task_factory: Callable[..., Task], docker_client: Any
) -> None:
    task = task_factory(tag="tagged")

    def tag() -> str:
        return plan_build(load_task(task.path), client=docker_client).tag

    before = tag()
    info = task.path / INFO_FILE
    data = json.loads(info.read_text())
    data["implementations"][0][MUTATION_SCORE_KEY] = {"killed": 2, "total": 2}
    data["implementations"][0][EQUIVALENTS_KEY] = [{"mutant": "m1", "reason": "same"}]
    data["saved_at"] = "2026-11-29T07:00:00Z"
    info.write_text(json.dumps(data, indent=4))
    assert tag() == before

    seen = {before}
    changes: list[Callable[[], object]] = [
        lambda: (task.repo_dir / "calc.py").write_text("def add(a, b):\n    return b + a\n"),
        # A file named info.json inside the repository is the repository's: it is copied.
        lambda: (task.repo_dir / INFO_FILE).write_text("{}"),
        lambda: (task.path / "notes.txt").write_text("a file the context sends"),
        lambda: (task.repo_dir / "calc.py").chmod(0o755),
        lambda: task.dockerfile_path.write_text(
            task.dockerfile_path.read_text() + "\nENV CHANGED=1\n"
        ),
    ]
    for change in changes:
        change()
        now = tag()
        assert now not in seen
        seen.add(now)
