"""Where ``validate --run``'s test runs execute: here, or elsewhere (Slurm), same outcome.

The dynamic proof and mutation testing run a task's tests raw (`run_tests` of a
`RunSpec` with the given limits and, for the golden proof's followers, the expected
counts): the golden run IS the proof, so no count is enforced on it. A `Runner` takes a
batch of such runs and returns their outcomes in order; a batch is what may run at once (all
mutants of an implementation, the masked and second golden runs), so a remote runner
submits it together. `LocalRunner` runs them one by one against this machine's engine;
``lmr_author.executors.slurm.SlurmRunner`` sends them to Slurm.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol

from lmr_author.sandbox.run_result import ImplementationRun
from lmr_author.sandbox.run_spec import RunSpec

if TYPE_CHECKING:
    import docker


class Runner(Protocol):
    """Runs a batch of `RunSpec` and returns their outcomes, in order.

    An engine or cluster failure is the outcome's ``infra_error``, never an exception.
    """

    def run_all(
        self, runs: Sequence[RunSpec], on_progress: Callable[[str], None] | None = None
    ) -> list[ImplementationRun]: ...


class LocalRunner:
    """Runs each run here, one after the other, against this machine's engine."""

    def __init__(self, client: docker.DockerClient | None = None) -> None:
        self.client = client

    def run_all(
        self, runs: Sequence[RunSpec], on_progress: Callable[[str], None] | None = None
    ) -> list[ImplementationRun]:
        from lmr_author.sandbox.runner import run_tests

        outcomes = []
        for run in runs:
            if on_progress is not None and run.label:
                on_progress(run.label)
            outcomes.append(run_tests(run, client=self.client))
        return outcomes
