"""Tiny task folders for the sandbox tests, written from templates/Dockerfile.

Every task gets a folder name unique to this test session, so the containers and images
of these tests can be told from anyone else's by their task label and removed at the end.
(A module of its own, not conftest, so that test files can import it by a unique name.)
"""

from __future__ import annotations

import json
import textwrap
import uuid
from pathlib import Path
from typing import Any

from lmr_author.domain.task import Task, load_task
from lmr_author.runtime import LABEL_KEY, TASK_LABEL

REPO = "calc_repo"
SESSION = uuid.uuid4().hex[:8]

GOLDEN = textwrap.dedent(
    '''\
    """A tiny repository module with one goal function."""


    def add(a, b):
        """Return the sum of a and b."""
        return a + b
    '''
)
MASKED = textwrap.dedent(
    '''\
    """A tiny repository module with one goal function."""


    def add(a, b):
        """Return the sum of a and b."""
        # TODO: implement
        pass
    '''
)
ASSERT_TEST = textwrap.dedent(
    """\
    from calc import add

    assert add(2, 3) == 5, "add(2, 3) should be 5"
    assert add(-1, 1) == 0
    print("ok")
    """
)
LEGACY_TEST = textwrap.dedent(
    """\
    import os

    from calc import add

    os.makedirs("unit_test/logs", exist_ok=True)
    with open("unit_test/logs/unit_test_1.log", "w") as log:
        for a, b, want in [(2, 3, 5), (-1, 1, 0)]:
            try:
                got = add(a, b)
            except Exception as error:
                got = error
            log.write(("Test Passed" if got == want else "Test Failed") + "\\n")
    """
)


def task_name(tag: str) -> str:
    return f"90-Sbx{tag}-{SESSION}"


def write_task(
    root: Path,
    *,
    tag: str = "calc",
    test_source: str = ASSERT_TEST,
    golden: str = GOLDEN,
    masked: str = MASKED,
    dockerfile: str | None = None,
) -> Task:
    """Write a one-implementation task folder under ``root`` and load it."""
    repo_root = Path(__file__).resolve().parents[2]
    task_dir = root / task_name(tag)
    repo = task_dir / REPO
    (repo / "unit_test").mkdir(parents=True)
    (task_dir / "golden_files").mkdir()
    (repo / "calc.py").write_text(masked)
    (repo / "unit_test" / "unit_test_1.py").write_text(test_source)
    (task_dir / "golden_files" / "calc_golden.py").write_text(golden)
    if dockerfile is None:
        template = (repo_root / "templates" / "Dockerfile").read_text()
        dockerfile = template.replace("{repo_folder_name}", REPO)
    (task_dir / "Dockerfile").write_text(dockerfile)
    info: dict[str, Any] = {
        "instance_id": 90,
        "paper_name": "A calculator",
        "folder_name": task_dir.name,
        "paper_url": "",
        "year": 2024,
        "repo_url": "",
        "repo_folder_name": REPO,
        "implementations": [
            {
                "instruction": "Implement add.",
                "index": 1,
                "category": "Evaluation Metrics",
                "goal_file": "calc.py",
                "goal_function": "add",
                "class_name": "",
                "golden_file": "golden_files/calc_golden.py",
                "retrieval_context": [],
                "unit_test_file": "unit_test/unit_test_1.py",
            }
        ],
    }
    (task_dir / "info.json").write_text(json.dumps(info, indent=4))
    return load_task(task_dir)


def leftover_containers(client: Any) -> list[Any]:
    """Containers of this session's tasks that still exist (there should be none)."""
    found = client.api.containers(all=True, filters={"label": [LABEL_KEY, TASK_LABEL]})
    return [c for c in found if (c.get("Labels") or {}).get(TASK_LABEL, "").endswith(SESSION)]


def remove_session_images(client: Any) -> None:
    for image in client.api.images(filters={"label": [LABEL_KEY, TASK_LABEL]}):
        task = (image.get("Labels") or {}).get(TASK_LABEL, "")
        if task.endswith(SESSION):
            client.api.remove_image(image["Id"], force=True)


def run_candidate(
    task: Task, impl: Any, candidate: bytes | None, image: Any, client: Any, **options: Any
) -> Any:
    """`run_tests` of a `RunSpec` made of ``options``' spec fields (limits, protocol,
    expected, isolated, test_reads); the rest (env, test_files, uid, gid) go to
    `run_tests` itself."""
    import dataclasses

    from lmr_author.sandbox.run_spec import RunSpec
    from lmr_author.sandbox.runner import run_tests

    fields = {field.name for field in dataclasses.fields(RunSpec)}
    spec = RunSpec(
        task, impl, candidate, image, **{k: v for k, v in options.items() if k in fields}
    )
    rest = {k: v for k, v in options.items() if k not in fields}
    return run_tests(spec, client=client, **rest)
