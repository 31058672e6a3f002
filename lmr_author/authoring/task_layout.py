"""What a draft becomes on disk: the Task (and its implementations) of a task folder.

The one rule that turns a `TaskSpec` into info.json's shape, shared by the builder
(step 8), the live info.json check and the environment image build; it writes nothing.
"""

from __future__ import annotations

from pathlib import Path

from lmr_author.authoring.spec import TaskSpec
from lmr_author.domain.hardware import HARDWARE_KEY
from lmr_author.domain.task import Implementation, Task
from lmr_author.domain.test_strength import EQUIVALENTS_KEY


def golden_name(goal_file: str, taken: dict[str, str]) -> str:
    """``golden_files/<stem>_golden.py``, disambiguated when two goal files share a stem."""
    if goal_file in taken:
        return taken[goal_file]
    stem = Path(goal_file).stem
    name = f"golden_files/{stem}_golden.py"
    if name in taken.values():
        name = f"golden_files/{goal_file.removesuffix('.py').replace('/', '_')}_golden.py"
    taken[goal_file] = name
    return name


def unit_test_file(index: int) -> str:
    """The unit test of a draft's goal number ``index`` (from 1), in the repository."""
    return f"unit_test/unit_test_{index}.py"


def implementations_from_spec(
    spec: TaskSpec, task_dir: Path, repo_dir: Path
) -> list[Implementation]:
    """The info.json implementations the draft's goals become (index from 1)."""
    goldens: dict[str, str] = {}
    return [
        Implementation(
            index=index,
            instruction=goal.instruction,
            goal_file=goal.goal_file,
            goal_function=goal.goal_function,
            golden_file=golden_name(goal.goal_file, goldens),
            unit_test_file=unit_test_file(index),
            class_name=goal.class_name,
            category=goal.category or None,
            retrieval_context=list(goal.retrieval_context),
            task_dir=task_dir,
            repo_dir=repo_dir,
            extra=(
                {EQUIVALENTS_KEY: [dict(item) for item in goal.equivalent_mutants]}
                if goal.equivalent_mutants
                else {}
            ),
        )
        for index, goal in enumerate(spec.goals, start=1)
    ]


def task_from_spec(
    spec: TaskSpec,
    task_dir: Path,
    *,
    repo_folder: str | None = None,
    repo_url: str = "",
    repo_commit: str = "",
) -> Task:
    """The task the draft becomes in ``task_dir``: what both the live info.json check and
    the builder write through `Task.to_info` (the checkout fills in a missing URL/commit)."""
    folder = repo_folder or spec.repo_folder()
    hardware = spec.hardware_info()
    return Task(
        path=task_dir,
        instance_id=spec.instance_id,
        folder_name=spec.folder_name,
        repo_folder_name=folder,
        paper_name=spec.paper_name,
        paper_url=spec.paper_url,
        year=spec.year,
        repo_url=spec.repo_url or repo_url,
        repo_commit=spec.repo_commit or repo_commit,
        implementations=implementations_from_spec(spec, task_dir, task_dir / folder),
        extra={} if hardware is None else {HARDWARE_KEY: hardware},
    )
