"""What each job array asks Slurm for, and the ``sbatch`` command line and script of one.

A run's request is its `Resources`: CPUs, memory, walltime and generic resources. By
default they come from the run's own sandbox limits: the container's memory limit plus
`MEMORY_MARGIN_MB` (the worker's Python, the engine client, conmon or Apptainer's
starter) and three test timeouts plus ten minutes (the candidate's test and the golden
count check, plus start-up); ``--mem`` and ``--time`` replace them for every run. Runs
with equal `Resources` share an array; the user's `SbatchOptions` (partition, account,
QOS, passthrough arguments, the throttle) apply to every array. An array has one
element per run in flight (`array_elements`), not one per run: each element is a
worker that claims run after run (`lmr_author.executors.claims`).
"""

from __future__ import annotations

import math
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

#: Memory a job asks for beyond its container's limit (worker, engine client, runtime).
MEMORY_MARGIN_MB = 512
#: The throttle when sinfo says nothing about the cluster's size.
FALLBACK_IN_FLIGHT = 16


@dataclass(frozen=True)
class Resources:
    """What one array element asks for: runs with equal resources share an array."""

    cpus: int
    #: None: not asked by lmr-author, the site's ``SBATCH_*`` default holds.
    memory: str | None
    time: str | None
    gres: str | None = None


@dataclass(frozen=True)
class SbatchOptions:
    """The user's sbatch options: given to every array of the evaluation."""

    partition: str | None = None
    mem: str | None = None
    time: str | None = None
    account: str | None = None
    qos: str | None = None
    #: ``--sbatch-arg`` values, passed as they are (after ours: they win).
    extra: tuple[str, ...] = ()
    #: ``%N`` of every array; None: `default_in_flight`.
    max_in_flight: int | None = None
    #: The site sets a default walltime / memory (``SBATCH_TIMELIMIT``,
    #: ``SBATCH_MEM_PER_*``): without --time / --mem, lmr-author asks for none of its own.
    site_time: bool = False
    site_memory: bool = False

    def fixed_args(self) -> list[str]:
        """The options that are the same for every array, as sbatch arguments."""
        argv = [f"--partition={self.partition}"] if self.partition else []
        argv += [f"--account={self.account}"] if self.account else []
        argv += [f"--qos={self.qos}"] if self.qos else []
        return argv

    def resources(
        self, *, cpus: float, memory_mb: int, timeout_s: float, gres: str | None
    ) -> Resources:
        """A run's request: from its limits, unless ``--mem`` or ``--time`` was given."""
        return Resources(
            cpus=max(1, math.ceil(cpus)),
            memory=self.mem or (None if self.site_memory else default_memory(memory_mb)),
            time=self.time or (None if self.site_time else default_time(timeout_s)),
            gres=gres,
        )


def default_memory(memory_mb: int) -> str:
    """The container's memory limit plus the margin, in sbatch's syntax (MB)."""
    return f"{memory_mb + MEMORY_MARGIN_MB}M"


def default_time(timeout_s: float) -> str:
    """Three test timeouts plus ten minutes, in whole minutes (sbatch's syntax)."""
    return str(math.ceil((timeout_s * 3 + 600) / 60))


def run_budget_s(timeout_s: float) -> float:
    """The most one run may take (its test and the golden count check, each at most
    ``timeout_s``, plus five minutes of start-up): a worker claims another run only
    while its walltime has this much left."""
    return 2 * timeout_s + 300


def default_in_flight(cluster_cpus: int, cpus_per_run: int) -> int:
    """As many elements at once as the partition has CPUs for (the scheduler shares them)."""
    if cluster_cpus <= 0:
        return FALLBACK_IN_FLIGHT
    return max(1, cluster_cpus // max(1, cpus_per_run))


def resource_args(resources: Resources) -> list[str]:
    argv = [f"--cpus-per-task={resources.cpus}"]
    argv += [f"--mem={resources.memory}"] if resources.memory is not None else []
    argv += [f"--time={resources.time}"] if resources.time is not None else []
    return argv + ([f"--gres={resources.gres}"] if resources.gres else [])


def array_elements(runs: int, throttle: int) -> int:
    """Workers for ``runs`` runs at most ``throttle`` at once: each runs one run at a
    time, so ``throttle`` workers bound the runs in flight as ``%throttle`` did."""
    return max(1, min(runs, throttle))


def array_argv(
    *,
    name: str,
    folder: Path,
    elements: int,
    resources: Resources,
    options: SbatchOptions,
) -> list[str]:
    """``sbatch`` for one array of ``elements`` workers."""
    argv = ["sbatch", "--parsable", f"--array=0-{elements - 1}", f"--job-name={name}"]
    argv += [f"--output={folder}/%a.out", f"--chdir={folder}"]
    argv += resource_args(resources) + options.fixed_args() + list(options.extra)
    return [*argv, str(folder / "job.sh")]


def write_array(folder: Path, requests: Sequence[Path], python: str, budget_s: float) -> None:
    """The array's folder: run ``i`` is ``i.json`` (a link to its request); each element
    runs the worker (the submitter's Python) over the folder, claiming runs
    (`lmr_author.executors.claims`) while its walltime has ``budget_s`` left."""
    folder.mkdir(parents=True)
    for position, request in enumerate(requests):
        (folder / f"{position}.json").symlink_to(request)
    (folder / "job.sh").write_text(
        "#!/bin/sh\n"
        f"exec {shlex.quote(python)} -m lmr_author.executors.worker --array "
        f"{shlex.quote(str(folder))} {len(requests)} {budget_s:g}\n"
    )
