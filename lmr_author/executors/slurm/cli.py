"""Slurm's client commands and what they print (squeue, sinfo, scontrol), read here once.

Every call to a Slurm client goes through `slurm_command`: a failure is a `SlurmError`
(an infrastructure error: the run is not counted), never a traceback.
"""

from __future__ import annotations

import contextlib
import subprocess
from collections.abc import Sequence

from lmr_author.runtime.infra_error import InfraError

#: Slurm's own default ``MaxArraySize`` (array indices 0 to 1000).
DEFAULT_MAX_ARRAY_SIZE = 1001


class SlurmError(InfraError):
    """sbatch, squeue, sinfo, scontrol or scancel failed."""


def slurm_command(argv: Sequence[str], *, timeout_s: float = 60.0) -> str:
    """Run a Slurm client command; its stdout, or `SlurmError` saying what it said."""
    try:
        done = subprocess.run(
            list(argv), capture_output=True, text=True, timeout=timeout_s, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        raise SlurmError(f"{argv[0]} failed: {error}") from None
    if done.returncode != 0:
        said = " ".join((done.stderr or done.stdout).split())
        raise SlurmError(f"{argv[0]} failed (exit {done.returncode}): {said}")
    return done.stdout


def parse_squeue(out: str) -> dict[str, str]:
    """``squeue -h -r -o '%i %t'``: each array element's id and its state code."""
    alive = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2:
            alive[parts[0]] = parts[1]
    return alive


def squeue_elements(name: str) -> dict[str, str]:
    """The elements of the jobs named ``name`` still queued or running, with their state."""
    return parse_squeue(slurm_command(["squeue", "-h", "-r", f"--name={name}", "-o", "%i %t"]))


def parse_sinfo_cpus(out: str) -> int:
    """``sinfo -h -o %C`` (allocated/idle/other/total per line): the total CPUs."""
    total = 0
    for line in out.split():
        parts = line.split("/")
        if len(parts) == 4 and parts[3].isdigit():
            total += int(parts[3])
    return total


def partition_cpus(partition: str | None) -> int:
    """The CPUs of ``partition`` (or of every partition); 0 when sinfo does not say."""
    argv = ["sinfo", "-h", "-o", "%C"] + ([f"--partition={partition}"] if partition else [])
    with contextlib.suppress(SlurmError):
        return parse_sinfo_cpus(slurm_command(argv))
    return 0


def parse_max_array_size(config: str) -> int:
    """``MaxArraySize`` from ``scontrol show config`` (Slurm's default when absent)."""
    for line in config.splitlines():
        key, _, value = line.partition("=")
        if key.strip() == "MaxArraySize" and value.strip().isdigit():
            return max(1, int(value.strip()))
    return DEFAULT_MAX_ARRAY_SIZE


def max_array_size() -> int:
    """How many elements one array may hold here (arrays longer are split)."""
    with contextlib.suppress(SlurmError):
        return parse_max_array_size(slurm_command(["scontrol", "show", "config"]))
    return DEFAULT_MAX_ARRAY_SIZE


def parse_time_left(text: str) -> float | None:
    """squeue's ``%L`` (``[days-][hours:]minutes:seconds``) in seconds; None for
    ``UNLIMITED``, ``NOT_SET`` or anything else."""
    days, _, clock = text.strip().rpartition("-")
    parts = clock.split(":")
    if not (days == "" or days.isdigit()) or not 2 <= len(parts) <= 3:
        return None
    if not all(part.isdigit() for part in parts):
        return None
    seconds = 0
    for part in parts:
        seconds = seconds * 60 + int(part)
    return float(seconds + int(days or 0) * 86400)


def time_left_s(job: str, element: str) -> float | None:
    """Seconds of walltime array element ``job_element`` has left (None: unknown or
    unlimited)."""
    if not (job.isdigit() and element.isdigit()):
        return None
    with contextlib.suppress(SlurmError):
        argv = ["squeue", "-h", "-j", f"{job}_{element}", "-o", "%L"]
        return parse_time_left(slurm_command(argv))
    return None


def scancel_name(name: str) -> None:
    """Cancel every job named ``name``; on failure they end on their own at their walltime."""
    with contextlib.suppress(SlurmError):
        slurm_command(["scancel", f"--name={name}"])


def scancel_pending_name(name: str) -> None:
    """Cancel the elements of the jobs named ``name`` that have not started."""
    with contextlib.suppress(SlurmError):
        slurm_command(["scancel", "--state=PENDING", f"--name={name}"])


def scancel_pending(job: str) -> None:
    """Cancel the elements of ``job`` that have not started (the running ones go on)."""
    with contextlib.suppress(SlurmError):
        slurm_command(["scancel", "--state=PENDING", job])


def scancel_job(job: str) -> None:
    with contextlib.suppress(SlurmError):
        slurm_command(["scancel", job])
