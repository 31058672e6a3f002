"""Mutants that share containers get the verdicts normal runs give them (issue 43).

Every mutant of every implementation of the sample benchmark and of the NumPy stand-ins
of the published torch tasks (an optimizer's ``step`` that updates its parameters and
per-parameter state in place, a module's ``forward`` that updates a buffer) runs both
ways: in a batch (`lmr_author.sandbox.batch`: one container, the libraries imported once,
a test process and a candidate's process forked per mutant) and the normal way (a fresh
container each, `run_tests`). Verdicts and reasons must be the same, mutant by mutant,
and the batch must have decided them itself (no mutant ran the normal way behind it).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lmr_author.domain.task import Task, load_task
from lmr_author.images.task_images import ImageRef, ensure_image
from lmr_author.mutation.mutants import mutants_of
from lmr_author.mutation.score import mutant_specs
from lmr_author.sandbox import batch
from lmr_author.sandbox.limits import Limits
from lmr_author.sandbox.run_result import ImplementationRun
from lmr_author.sandbox.runner import run_tests
from tests.support.isolation_tasks import CONV, LION, write_isolation_task

pytestmark = [pytest.mark.docker, pytest.mark.usefixtures("image_cleanup", "no_leftovers")]

BENCHMARK = Path(__file__).resolve().parents[2] / "benchmark"
SAMPLE = [
    (task_dir.name, impl.index)
    for task_dir in sorted(path.parent for path in BENCHMARK.glob("*/info.json"))
    for impl in load_task(task_dir).implementations
]
STAND_INS = [("stand-in", LION.index), ("stand-in", CONV.index)]
NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


@pytest.fixture(scope="module")
def stand_in(tmp_path_factory: pytest.TempPathFactory) -> Task:
    return load_task(write_isolation_task(tmp_path_factory.mktemp("bench")))


def _seen(run: ImplementationRun) -> tuple[Any, ...]:
    """What a run decided. Numbers in reasons are left out: a mutant may return what
    uninitialised memory holds (np.empty), different in any two runs."""
    tests = [
        (v.test_file, v.verdict, NUMBER.sub("#", v.reason), v.tests_run, v.isolated)
        for v in run.verdicts
    ]
    return run.verdict, run.infra_error, run.isolated, tuple(tests)


@pytest.fixture
def normal_runs_counted(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The labels of the runs a batch handed to the normal way."""
    handed: list[str] = []

    def counted(spec: Any, **kwargs: Any) -> ImplementationRun:
        handed.append(spec.label)
        return run_tests(spec, **kwargs)

    monkeypatch.setattr(batch, "run_tests", counted)
    yield handed


@pytest.mark.timeout(1200)
@pytest.mark.parametrize(("name", "index"), SAMPLE + STAND_INS, ids=lambda v: str(v))
def test_every_mutant_gets_the_verdict_of_a_normal_run(
    name: str,
    index: int,
    stand_in: Task,
    docker_client: Any,
    normal_runs_counted: list[str],
) -> None:
    task = stand_in if name == "stand-in" else load_task(BENCHMARK / name)
    impl = task.implementation(index)
    image: ImageRef = ensure_image(task, client=docker_client)
    mutants = mutants_of(impl.golden_path.read_bytes(), impl.goal_function, impl.class_name)
    assert mutants, "the goal function has mutants"
    specs = mutant_specs(task, impl, image, Limits(timeout_s=60), mutants)
    batched = batch.run_batched(specs, client=docker_client)
    assert normal_runs_counted == [], "the batch decided every mutant itself"
    for mutant, spec, shared in zip(mutants, specs, batched, strict=True):
        alone = run_tests(spec, client=docker_client)
        assert _seen(shared) == _seen(alone), f"mutant {mutant.index}: {mutant.description}"
    # Both kinds of verdict are there: the comparison is not of one kind only.
    assert {run.passed for run in batched} >= {False}
