"""Run keys without Docker: the real evaluation loop, with nothing built and nothing run.

A run's key (`lmr_author.eval_output.run_key`) hashes the task, the candidate, the image
and the sandbox settings; it decides which stored runs a resumed ``eval`` keeps, so a
change that is not meant to change behaviour must leave every key as it was. `keyed_runs`
computes them through `run_evaluation` itself: the image a run would use is named by its
build plan's tag (a hash of everything its build would use) instead of the engine's image
id, the engine is asked nothing (base images hash as absent), and the run is not run.

Used by ``sample_runs`` (the sample benchmark's record) and by
``benchmarks/published_run_keys.py`` (a published-layout benchmark's). It lives with the
tests rather than in the package: it stands in for the engine, which no user command
should ever do, and only checks that the package's keys stay put.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lmr_author.domain.task import Implementation, Task
from lmr_author.eval_loop import DockerBackend, Submission, load_runs, run_evaluation
from lmr_author.eval_output import RunRecord
from lmr_author.images.certificates import CA_VARIABLES
from lmr_author.images.task_images import plan_build


class _NoImages:
    """An engine that has no image at all: base images hash as absent."""

    class images:  # the Docker SDK's attribute name
        @staticmethod
        def get(name: str) -> Any:
            import docker.errors

            raise docker.errors.ImageNotFound(f"{name} (no engine here)")


@dataclass
class _PlannedImage:
    image_id: str


class KeysOnly(DockerBackend):
    """The real settings and run keys; images named by their build plan, nothing run."""

    def prepare(self, task: Task) -> _PlannedImage:
        plan = plan_build(task, client=_NoImages(), base_image=self.base_image)  # type: ignore[arg-type]
        return _PlannedImage(plan.tag)

    def run(self, task: Task, implementation: Implementation, candidate: bytes, image: Any) -> Any:
        raise RuntimeError("not run: only the run key is recorded")

    def sweep_orphans(self) -> list[str]:
        return []


@contextmanager
def _without_host_ca() -> Iterator[None]:
    """A host CA bundle changes the image plan (certificates.py); records have none."""
    saved = {name: os.environ.pop(name) for name in CA_VARIABLES if name in os.environ}
    try:
        yield
    finally:
        os.environ.update(saved)


def run_name(system: str, task: str, implementation: int) -> str:
    return f"{system}/{task}#{implementation}"


def keyed_runs(
    benchmark: Path,
    submissions: list[Submission],
    backend: KeysOnly,
    tasks: Sequence[str] | None = None,
) -> list[RunRecord]:
    """Every run of ``submissions`` on ``benchmark`` (its tasks that load), with its key,
    its candidate's hash and, as ``image_id``, its image's plan tag ("" when none)."""
    with _without_host_ca(), tempfile.TemporaryDirectory() as scratch:
        output = Path(scratch) / "eval"
        run_evaluation(benchmark, submissions, output, tasks=tasks or None, backend=backend)
        return load_runs(output)
