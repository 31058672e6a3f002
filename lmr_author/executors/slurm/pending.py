"""One run handed to Slurm, its outcome once known, and the retry rule for a lost one."""

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
    #: Times its element was submitted.
    attempts: int = 0
    #: Polls in a row that found the element gone without its result.
    misses: int = 0
    element: str = ""
    log: Path | None = None
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


#: Polls in a row an element must be missing before it counts as lost: a result written
#: on another node may show up a poll late.
MISSES_BEFORE_LOST = 2


def retry_or_fail(pending: Pending, retries: int) -> InfraError | None:
    """A lost element (it left the queue without a result): None to submit it again,
    else the infrastructure error the run ends with (never a candidate's verdict)."""
    if pending.attempts <= retries:
        return None
    return InfraError(
        f"Slurm job {pending.element} ended without a result {pending.attempts} time(s) "
        f"(node failure, killed or out of time); see {pending.log}"
    )
