"""``validate --run --executor slurm``: each batch of raw runs is one job array."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from lmr_author.eval_loop.backend import RunCancelled
from lmr_author.executors.slurm.backend import SlurmBackend
from lmr_author.sandbox.run_result import ImplementationRun
from lmr_author.sandbox.run_spec import RunSpec


class SlurmRunner:
    """Runs ``validate``'s raw runs through a `SlurmBackend`, a batch at a time."""

    def __init__(self, backend: SlurmBackend) -> None:
        self.backend = backend

    def run_all(
        self, runs: Sequence[RunSpec], on_progress: Callable[[str], None] | None = None
    ) -> list[ImplementationRun]:
        if on_progress is not None and runs:
            first = runs[0].label or runs[0].task.name
            more = f" and {len(runs) - 1} more" if len(runs) > 1 else ""
            on_progress(f"{first}{more}: submitted to Slurm")
        outcomes = []
        for run, outcome in zip(runs, self.backend.run_raw(runs), strict=True):
            if isinstance(outcome, RunCancelled):
                raise outcome
            if isinstance(outcome, BaseException):
                # A cluster failure is the run's infrastructure error, as locally.
                reason = str(outcome) or type(outcome).__name__
                outcome = ImplementationRun(
                    verdicts=[], image_id=run.image.image_id, infra_error=reason
                )
            if not isinstance(outcome, ImplementationRun):
                raise TypeError(f"a raw run came back as {outcome!r}")
            outcomes.append(outcome)
        return outcomes
