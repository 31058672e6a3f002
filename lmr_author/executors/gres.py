"""What Slurm is asked for per run (``sbatch --gres``), and which GPUs a node's job got.

A task declares its needs in info.json (`lmr_author.domain.hardware`): ``"gpus": N`` becomes
``--gres=gpu:N``. Slurm has no generic way to ask for GPU memory; ``--gpu-types`` maps
memory to the site's GPU type names (``16=v100,40=a100``): the smallest type with at
least the memory a task needs gives ``--gres=gpu:TYPE:N``. ``--gres SPEC`` given by the
user is asked for every run instead.

On the node, the job's GPUs are those Slurm allocated: ``SLURM_JOB_GPUS`` (the host's
GPU indices) or else ``CUDA_VISIBLE_DEVICES``. The container engine runs outside the
job's cgroup and numbers GPUs as the host does, so those indices become the run's
``--gpus device=…``, never ``all`` (which would hand the container every GPU of the
node, other jobs' included).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from lmr_author.domain.hardware import Hardware
from lmr_author.runtime.infra_error import InfraError
from lmr_author.util.errors import UserError

_TYPE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
#: GPU ids as Slurm writes them: indices, or UUIDs (``GPU-…``, ``MIG-…``).
_GPU_IDS = re.compile(r"[A-Za-z0-9-]{1,80}(,[A-Za-z0-9-]{1,80}){0,63}")


@dataclass(frozen=True)
class GpuType:
    """A site's GPU type (its gres name) and the memory of one such GPU."""

    memory_gb: float
    name: str


def parse_gpu_types(text: str) -> tuple[GpuType, ...]:
    """``--gpu-types 16=v100,40=a100``: the types, smallest memory first."""
    hint = (
        "Give MEMORY_GB=TYPE pairs separated by commas, with the gres type names of your "
        "cluster, e.g. --gpu-types 16=v100,40=a100,80=a100_80g."
    )
    types = []
    for part in text.split(","):
        memory, sep, name = part.strip().partition("=")
        try:
            gigabytes = float(memory)
        except ValueError:
            gigabytes = -1.0
        if not sep or not gigabytes > 0 or not _TYPE_NAME.fullmatch(name.strip()):
            raise UserError(f"--gpu-types: {part.strip()!r} is not MEMORY_GB=TYPE", hint=hint)
        types.append(GpuType(gigabytes, name.strip()))
    return tuple(sorted(types, key=lambda kind: kind.memory_gb))


def gres_for(
    hardware: Hardware, *, user_gres: str | None, gpu_types: Sequence[GpuType] = ()
) -> str | None:
    """The ``--gres`` of one run of a task that declares ``hardware`` (None: no GPU)."""
    if user_gres:
        return user_gres
    if not hardware.needs_gpu:
        return None
    if hardware.gpu_memory_gb is None or not gpu_types:
        return f"gpu:{hardware.gpus}"
    for kind in gpu_types:
        if kind.memory_gb >= hardware.gpu_memory_gb:
            return f"gpu:{kind.name}:{hardware.gpus}"
    largest = gpu_types[-1]
    raise InfraError(
        f"the task needs GPUs with {hardware.gpu_memory_gb:g} GB, more than any type "
        f"--gpu-types names (the largest: {largest.memory_gb:g}={largest.name})",
        hint="Add a larger GPU type to --gpu-types, or give --gres for every run.",
    )


def unrequested_memory(
    hardware: Hardware, *, user_gres: str | None, gpu_types: Sequence[GpuType] = ()
) -> str | None:
    """What a run needs that its ``--gres`` does not ask Slurm for (said once per task)."""
    if user_gres or hardware.gpu_memory_gb is None or gpu_types:
        return None
    return (
        f"wants {hardware.describe()}; Slurm is asked for gpu:{hardware.gpus} without "
        "a memory (--gpu-types maps memory to your cluster's GPU types)"
    )


def allocated_gpus(environ: Mapping[str, str]) -> list[str]:
    """The GPUs Slurm gave this job, as the host numbers them (none outside a job)."""
    if not environ.get("SLURM_JOB_ID"):
        return []
    for name in ("SLURM_JOB_GPUS", "CUDA_VISIBLE_DEVICES"):
        value = environ.get(name, "").strip()
        if value and _GPU_IDS.fullmatch(value):
            return value.split(",")
    return []


def container_gpus(
    hardware: Hardware, requested: str | None, environ: Mapping[str, str], *, task: str
) -> str | None:
    """The ``--gpus`` a run's container gets on this node.

    Inside a Slurm job with GPUs, a run that wants GPUs (``--gpus`` given, or the task
    declares them) gets exactly the job's. A task that declares GPUs in a job without
    any is refused (`InfraError`): it must not run without a GPU, silently.
    """
    given = allocated_gpus(environ)
    if given and (requested is not None or hardware.needs_gpu):
        if len(given) < hardware.gpus:
            raise InfraError(
                f"task {task} needs {hardware.describe()}, and Slurm gave this job "
                f"{len(given)} ({','.join(given)})",
                hint="Give a --gres that asks for enough GPUs, or leave --gres out.",
            )
        return "device=" + ",".join(given)
    if hardware.needs_gpu and requested is None:
        raise InfraError(
            f"task {task} needs {hardware.describe()} (info.json hardware), and this job "
            "has none (no SLURM_JOB_GPUS or CUDA_VISIBLE_DEVICES)",
            hint="Check that the partition has GPUs as a gres, or give --gres or --gpus.",
        )
    return requested
