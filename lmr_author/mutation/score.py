"""Run a task's tests on each mutant of its goal function, in the task's image.

Here, an implementation's mutants share a few containers (`MutantRunner`: mutants are
ours, not hostile); a ``runner`` given (Slurm's) gets them as one batch of normal runs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from lmr_author.domain.task import Implementation, Task
from lmr_author.mutation.batched import MutantRunner
from lmr_author.mutation.equivalents import EquivalentMutant, equivalents_of
from lmr_author.mutation.mutants import Mutant, mutants_of
from lmr_author.sandbox.limits import Limits
from lmr_author.sandbox.run_spec import Runner, RunSpec

if TYPE_CHECKING:
    import docker

    from lmr_author.images.task_images import ImageRef


@dataclass
class MutationReport:
    task: str
    impl_index: int
    total: int = 0
    killed: int = 0
    errors: int = 0  # engine trouble: neither killed nor survived
    survivors: list[Mutant] = field(default_factory=list)
    #: Survivors the task marks equivalent (info.json ``equivalent_mutants``), with why.
    equivalent: list[tuple[Mutant, EquivalentMutant]] = field(default_factory=list)

    @property
    def scored(self) -> int:
        """The mutants that count: run, and not marked equivalent."""
        return self.total - self.errors - len(self.equivalent)

    @property
    def score(self) -> float:
        """The share of the mutants that count which the tests kill (1.0 when none)."""
        return self.killed / self.scored if self.scored else 1.0


def mutant_specs(
    task: Task, impl: Implementation, image: ImageRef, limits: Limits, mutants: list[Mutant]
) -> list[RunSpec]:
    """One run of ``impl``'s tests per mutant, as the golden proof runs its candidates
    (a goal that cannot cross runs in the test's process: a mutant must not be "killed"
    by a crossing the golden avoids), held to nothing (a mutant's count of tests is its
    own)."""
    from lmr_author.sandbox.golden import load_proof, proof_key

    proof = load_proof(proof_key(task, impl, image, limits))
    return [
        RunSpec(
            task,
            impl,
            mutant.source,
            image,
            limits,
            label=f"{task.name} #{impl.index}: mutant {mutant.index}/{len(mutants)}",
            isolated=proof is None or proof.isolated,
            test_reads=() if proof is None else proof.test_reads,
        )
        for mutant in mutants
    ]


def mutation_test(
    task: Task,
    impl_index: int | None = None,
    *,
    base_image: str | None = None,
    limit: int = 40,
    limits: Limits | None = None,
    on_progress: Callable[[str], None] | None = None,
    client: docker.DockerClient | None = None,
    runner: Runner | None = None,
    workers: int = 2,
) -> list[MutationReport]:
    """Mutation reports of the task's implementations (or of one, by index).

    ``limits`` are the test containers' (timeout, ``--gpus``, ``--hf-cache``): a mutant
    runs as the golden code does. The mutants of an implementation are one batch of
    ``runner`` (default: here, in ``workers`` shared containers at once, `MutantRunner`),
    so a cluster gets them all at once.
    """
    from lmr_author.images.task_images import ensure_image
    from lmr_author.runtime.engine import get_client

    client = client or get_client()
    image = ensure_image(task, client=client, base_image=base_image)
    runner = runner or MutantRunner(client, workers)
    limits = limits or Limits()
    reports = []
    for impl in task.implementations:
        if impl_index is not None and impl.index != impl_index:
            continue
        report = MutationReport(task=task.name, impl_index=impl.index)
        marked = equivalents_of(impl)
        golden = impl.golden_path.read_bytes()
        mutants = mutants_of(golden, impl.goal_function, impl.class_name, limit=limit)
        report.total = len(mutants)
        runs = mutant_specs(task, impl, image, limits, mutants)
        for mutant, run in zip(mutants, runner.run_all(runs, on_progress), strict=True):
            if run.infra_error is not None:
                report.errors += 1
            elif run.passed and mutant.key in marked:
                report.equivalent.append((mutant, marked[mutant.key]))
            elif run.passed:
                report.survivors.append(mutant)
            else:
                report.killed += 1
        reports.append(report)
    return reports
