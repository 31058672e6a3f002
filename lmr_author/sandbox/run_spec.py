"""One run of an implementation's tests, as every path that runs tests describes it.

A `RunSpec` says what runs (the task, the implementation, the candidate goal file or
None for the masked one), in which image, under which limits and verdict protocol, and
what it is held to: the golden code's test counts, whether the candidate runs in a
process of its own, and what only the tests may read. Eval's scored runs (held to the
golden proof, `lmr_author.sandbox.golden`), ``validate --run``'s raw runs and mutants,
``sandbox run`` and a Slurm node's runs (the spec's wire form,
`lmr_author.executors.wire`) all hand one to a `Runner`, here or on a cluster, which
hands it to `lmr_author.sandbox.runner.run_tests`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from lmr_author.domain.task import Implementation, Task
from lmr_author.images.task_images import ImageRef
from lmr_author.sandbox.decision import Expected
from lmr_author.sandbox.limits import Limits
from lmr_author.sandbox.run_result import ImplementationRun


class GoldenCounts(Protocol):
    """What a run is held to (`lmr_author.sandbox.golden.Proof`)."""

    @property
    def expected(self) -> Mapping[str, Expected]: ...
    @property
    def isolated(self) -> bool: ...
    @property
    def test_reads(self) -> tuple[str, ...]: ...


@dataclass(frozen=True)
class RunSpec:
    """One run of ``impl``'s tests with ``candidate`` (None keeps the masked file)."""

    task: Task
    impl: Implementation
    candidate: bytes | None
    image: ImageRef
    limits: Limits = field(default_factory=Limits)
    protocol: str = "auto"
    #: What the golden code does per test file (None: held to nothing, the proof itself).
    expected: Mapping[str, Expected] | None = None
    #: The candidate in a process of its own (else in the test's), and what the golden
    #: proof saw only the tests read (private to them).
    isolated: bool = True
    test_reads: tuple[str, ...] = ()
    #: What progress lines call it ("01-DPO #1: masked").
    label: str = ""

    def held_to(self, proof: GoldenCounts | None) -> RunSpec:
        """This run held to ``proof`` (its counts, isolation and the tests' own reads);
        without one, held to nothing and isolated."""
        if proof is None:
            return dataclasses.replace(self, expected=None, isolated=True, test_reads=())
        return dataclasses.replace(
            self,
            expected=proof.expected,
            isolated=proof.isolated,
            test_reads=tuple(proof.test_reads),
        )


class Runner(Protocol):
    """Where runs execute: takes a batch of `RunSpec` and returns their outcomes, in order.

    A batch is what may run at once (all mutants of an implementation; the masked and
    second golden runs), so a remote runner submits it together. Here:
    `lmr_author.sandbox.runner.LocalRunner`; on a cluster,
    ``lmr_author.executors.slurm.SlurmRunner``. An engine or cluster failure is the
    outcome's ``infra_error``, never an exception.
    """

    def run_all(
        self, runs: Sequence[RunSpec], on_progress: Callable[[str], None] | None = None
    ) -> list[ImplementationRun]: ...
