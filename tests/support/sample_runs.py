"""What identifies the sample benchmark's runs, recorded so that moves can be checked.

``sample_runs.json`` beside this file holds, for the sample benchmark (``benchmark/``)
and its submissions in both forms (the mirror folders and ``predictions.jsonl``): the
sandbox settings that go into every run key, each task's image tag (the hash of what
its build would use), and per run the run key, the candidate's hash and the verdict
that a real ``eval`` in Docker gave. Run keys are computed by the real evaluation loop
(`run_evaluation`) without Docker: the image a run would use is named by its build
plan's tag instead of the engine's image id, and nothing is run.

A change that is meant to change run keys (the harness, the limits, the build recipe,
a sample task) rewrites the file: ``python -m tests.support.sample_runs --write``
(verdicts are kept; they change only by a Docker run of `test_sample_benchmark`'s demo).
Anything else must leave it as it is: the keys decide which stored runs a resumed
``eval`` keeps.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lmr_author.domain.task import Implementation, Task
from lmr_author.eval_loop import DockerBackend, Submission, load_runs, run_evaluation
from lmr_author.images.certificates import CA_VARIABLES
from lmr_author.images.task_images import plan_build

ROOT = Path(__file__).resolve().parents[2]
BENCHMARK = ROOT / "benchmark"
SUBMISSIONS = BENCHMARK / "submissions"
RECORD = Path(__file__).with_name("sample_runs.json")
#: The two forms of the sample submissions, each a list of `Submission` paths.
FORMS = {
    "mirror": [SUBMISSIONS / name for name in ("correct", "subtle-bug", "wrong-logic")],
    "jsonl": [SUBMISSIONS / "predictions.jsonl"],
}


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


class _KeysOnly(DockerBackend):
    """The real settings and run keys; images named by their build plan, nothing run."""

    def prepare(self, task: Task) -> _PlannedImage:
        return _PlannedImage(plan_build(task, client=_NoImages()).tag)  # type: ignore[arg-type]

    def run(self, task: Task, implementation: Implementation, candidate: bytes, image: Any) -> Any:
        raise RuntimeError("not run: only the run key is recorded")

    def sweep_orphans(self) -> list[str]:
        return []


@contextmanager
def _without_host_ca() -> Iterator[None]:
    """A host CA bundle changes the image plan (certificates.py); the record has none."""
    saved = {name: os.environ.pop(name) for name in CA_VARIABLES if name in os.environ}
    try:
        yield
    finally:
        os.environ.update(saved)


def _run_name(system: str, task: str, implementation: int) -> str:
    return f"{system}/{task}#{implementation}"


def compute() -> dict[str, Any]:
    """Settings, image tags and per form every run's key and candidate hash."""
    backend = _KeysOnly()
    record: dict[str, Any] = {"settings": backend.settings(), "images": {}, "runs": {}}
    with _without_host_ca(), tempfile.TemporaryDirectory() as scratch:
        for form, paths in FORMS.items():
            output = Path(scratch) / form
            run_evaluation(BENCHMARK, [Submission(path) for path in paths], output, backend=backend)
            runs = record["runs"].setdefault(form, {})
            for run in load_runs(output):
                record["images"][run.task] = run.image_id
                runs[_run_name(run.system, run.task, run.implementation)] = {
                    "run_key": run.run_key,
                    "candidate_sha256": run.candidate_sha256,
                }
    return record


def recorded() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(RECORD.read_text(encoding="utf-8"))
    return data


def verdicts_of(output: Path) -> dict[str, str]:
    """Every run's verdict in an eval output folder, named as in the record."""
    return {
        _run_name(run.system, run.task, run.implementation): run.verdict
        for run in load_runs(output)
    }


def _write(verdicts_from: Path | None) -> None:
    computed = compute()
    old = recorded() if RECORD.exists() else {}
    verdicts = verdicts_of(verdicts_from) if verdicts_from else old.get("verdicts", {})
    computed["verdicts"] = dict(sorted(verdicts.items()))
    RECORD.write_text(json.dumps(computed, indent=1, sort_keys=True) + "\n", encoding="utf-8")


if __name__ == "__main__":
    # --write [EVAL_OUTPUT]: rewrite the record; verdicts from EVAL_OUTPUT's runs if given.
    if sys.argv[1:2] != ["--write"]:
        sys.exit("usage: python -m tests.support.sample_runs --write [EVAL_OUTPUT]")
    _write(Path(sys.argv[2]) if len(sys.argv) > 2 else None)
