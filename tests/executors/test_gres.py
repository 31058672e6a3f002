"""What Slurm is asked for per task, and which GPUs a node's container gets."""

from __future__ import annotations

import pytest

from lmr_author.domain.hardware import NO_HARDWARE, Hardware
from lmr_author.executors.gres import (
    GpuType,
    allocated_gpus,
    container_gpus,
    gres_for,
    parse_gpu_types,
    unrequested_memory,
)
from lmr_author.runtime.infra_error import InfraError
from lmr_author.util.errors import UserError

TYPES = parse_gpu_types("40=a100, 16=v100,80=a100_80g")
ONE_24 = Hardware(gpus=1, gpu_memory_gb=24)
IN_JOB = {"SLURM_JOB_ID": "12"}


def test_gpu_types_are_sorted_by_memory() -> None:
    wanted = (GpuType(16, "v100"), GpuType(40, "a100"), GpuType(80, "a100_80g"))
    assert wanted == TYPES


@pytest.mark.parametrize("text", ["a100", "=a100", "x=a100", "0=a100", "16=", "16=a 100"])
def test_a_bad_gpu_type_map_is_refused(text: str) -> None:
    with pytest.raises(UserError, match="--gpu-types"):
        parse_gpu_types(text)


@pytest.mark.parametrize(
    ("hardware", "user", "types", "wanted"),
    [
        (NO_HARDWARE, None, TYPES, None),
        (Hardware(gpus=2), None, TYPES, "gpu:2"),
        (ONE_24, None, (), "gpu:1"),
        (ONE_24, None, TYPES, "gpu:a100:1"),
        (Hardware(gpus=2, gpu_memory_gb=16), None, TYPES, "gpu:v100:2"),
        (Hardware(gpus=1, gpu_memory_gb=80), None, TYPES, "gpu:a100_80g:1"),
        (ONE_24, "gpu:h100:1", TYPES, "gpu:h100:1"),
        (NO_HARDWARE, "gpu:1", (), "gpu:1"),
    ],
)
def test_the_gres_of_a_run(
    hardware: Hardware, user: str | None, types: tuple[GpuType, ...], wanted: str | None
) -> None:
    assert gres_for(hardware, user_gres=user, gpu_types=types) == wanted


def test_more_memory_than_any_type_is_an_infrastructure_error() -> None:
    with pytest.raises(InfraError, match=r"120 GB.*80=a100_80g"):
        gres_for(Hardware(gpus=1, gpu_memory_gb=120), user_gres=None, gpu_types=TYPES)


def test_memory_not_asked_of_slurm_is_said() -> None:
    note = unrequested_memory(ONE_24, user_gres=None)
    assert note is not None and "1 GPU with 24 GB" in note and "--gpu-types" in note
    assert unrequested_memory(ONE_24, user_gres=None, gpu_types=TYPES) is None
    assert unrequested_memory(Hardware(gpus=1), user_gres=None) is None


@pytest.mark.parametrize(
    ("environ", "ids"),
    [
        ({}, []),
        ({"CUDA_VISIBLE_DEVICES": "0"}, []),  # not a Slurm job: nothing Slurm gave
        ({**IN_JOB, "SLURM_JOB_GPUS": "2,3", "CUDA_VISIBLE_DEVICES": "0,1"}, ["2", "3"]),
        ({**IN_JOB, "CUDA_VISIBLE_DEVICES": "1"}, ["1"]),
        ({**IN_JOB, "CUDA_VISIBLE_DEVICES": "GPU-8f3a-1b2c"}, ["GPU-8f3a-1b2c"]),
        ({**IN_JOB, "CUDA_VISIBLE_DEVICES": "0;touch /x"}, []),
        ({**IN_JOB, "CUDA_VISIBLE_DEVICES": ""}, []),
    ],
)
def test_the_gpus_slurm_allocated(environ: dict[str, str], ids: list[str]) -> None:
    assert allocated_gpus(environ) == ids


def test_a_gpu_task_gets_the_jobs_gpus_never_all() -> None:
    environ = {**IN_JOB, "SLURM_JOB_GPUS": "3"}
    assert container_gpus(Hardware(gpus=1), None, environ, task="t") == "device=3"
    assert container_gpus(NO_HARDWARE, "all", environ, task="t") == "device=3"
    # A CPU task in a job with GPUs (a --gres for every run) gets none unless --gpus.
    assert container_gpus(NO_HARDWARE, None, environ, task="t") is None


def test_a_gpu_task_in_a_job_without_gpus_is_refused() -> None:
    with pytest.raises(InfraError, match=r"task t needs 1 GPU .* has none"):
        container_gpus(Hardware(gpus=1), None, IN_JOB, task="t")
    with pytest.raises(InfraError, match="needs 2 GPUs, and Slurm gave this job 1"):
        container_gpus(Hardware(gpus=2), None, {**IN_JOB, "SLURM_JOB_GPUS": "0"}, task="t")
    # --gpus given without a Slurm allocation: as the user asked (a site without gres).
    assert container_gpus(Hardware(gpus=1), "all", IN_JOB, task="t") == "all"
