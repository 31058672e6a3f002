"""One run handed to Slurm, the array it is in, its outcome once known, and the retry
rule for a lost one."""

from __future__ import annotations

from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path

from lmr_author.eval_loop.backend import ImplementationResult
from lmr_author.executors.slurm.sbatch import Resources
from lmr_author.executors.wire import Request
from lmr_author.runtime.infra_error import InfraError


@dataclass(eq=False)
class Pending:
    """A run's request in the shared folder, where it is in Slurm, and its future."""

    request: Request
    request_path: Path
    resources: Resources
    candidate_path: Path | None = None
    #: The sandbox's time limit of its test: how long it may hold a worker.
    timeout_s: float = 120.0
    #: Times it was submitted (an array that ended with it unclaimed after running
    #: others of its runs does not count: its workers ran out of walltime).
    attempts: int = 0
    #: Polls in a row that found its claimer gone without its result.
    misses: int = 0
    #: Its array and place in it, then the element that claimed it and that one's log.
    array: Array | None = None
    index: int = 0
    element: str = ""
    log: Path | None = None
    #: When it was first submitted (Unix time): its queue time runs from there.
    submitted_unix: float | None = None
    future: Future[ImplementationResult] = field(default_factory=Future)

    @property
    def result_path(self) -> Path:
        return Path(self.request.result_path)

    def settle(self, outcome: ImplementationResult | BaseException) -> None:
        """Give the run its outcome (once) and remove its files from the shared folder."""
        for path in (self.candidate_path, self.request_path, self.result_path):
            if path is not None:
                path.unlink(missing_ok=True)
        if self.future.done():
            return
        if isinstance(outcome, BaseException):
            self.future.set_exception(outcome)
        else:
            self.future.set_result(outcome)


@dataclass(eq=False)
class Array:
    """One submitted job array: its folder (requests, claims, logs) and open runs."""

    job: str
    folder: Path
    #: Its runs not settled yet, by index.
    open: dict[int, Pending]
    #: A worker of it claimed a run: its leftover runs are not its failure.
    progressed: bool = False
    #: Polls in a row that found none of its elements in the queue.
    misses: int = 0
    #: Its elements still pending were cancelled (every run claimed).
    trimmed: bool = False
    #: Runs its workers' walltime did not reach (taken back, submitted again).
    withdrawn: int = 0


#: Polls in a row an element must be missing before it counts as lost: a result written
#: on another node may show up a poll late.
MISSES_BEFORE_LOST = 2


def retry_or_fail(pending: Pending, retries: int) -> InfraError | None:
    """A lost element (it left the queue without a result): None to submit it again,
    else the infrastructure error the run ends with (never a candidate's verdict)."""
    if pending.attempts <= retries:
        return None
    if pending.element:  # its worker left the queue while running it
        return InfraError(
            f"Slurm job {pending.element} ended without a result {pending.attempts} "
            f"time(s) (node failure, killed or out of time); see {pending.log}"
        )
    where = "" if pending.array is None else f" in {pending.array.folder}"
    return InfraError(
        f"Slurm job {pending.array.job if pending.array else ''} ended without a result "
        f"{pending.attempts} time(s): no worker of it started the run (see the job logs{where})"
    )
