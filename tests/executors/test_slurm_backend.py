"""`SlurmBackend` before anything reaches Slurm: a run that cannot be asked for is that
run's infrastructure error, never the whole evaluation's crash."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from lmr_author.domain.task import load_task
from lmr_author.eval_loop.backend import DockerBackend
from lmr_author.executors.gres import parse_gpu_types
from lmr_author.executors.slurm import SlurmBackend
from lmr_author.executors.slurm.sbatch import MEMORY_MARGIN_MB
from lmr_author.runtime import engine
from lmr_author.runtime.infra_error import InfraError
from lmr_author.sandbox.limits import Limits
from tests.support.sandbox_tasks import GOLDEN, write_task


@dataclass(frozen=True)
class _Image:
    image_id: str = "sha256:" + "0" * 64


def test_a_gpu_no_listed_type_has_fails_its_run_alone(tmp_path: Path) -> None:
    task = write_task(tmp_path / "bench", tag="bigmem")
    info = json.loads(task.info_path.read_text())
    info["hardware"] = {"gpus": 1, "gpu_memory_gb": 200}
    task.info_path.write_text(json.dumps(info))
    task = load_task(task.path)
    backend = SlurmBackend(
        DockerBackend(), tmp_path / "shared", gpu_types=parse_gpu_types("16=v100,80=a100")
    )
    try:
        [future] = backend.start_runs([(task, task.implementation(1), GOLDEN.encode(), _Image())])
        with pytest.raises(InfraError, match="200"):
            future.result(timeout=5)
        assert backend.poller.jobs == []  # nothing was submitted
    finally:
        backend.close()


@pytest.mark.parametrize(("runtime", "memory"), [("docker", 1024), ("apptainer", 2048)])
def test_an_isolated_apptainer_run_asks_for_both_its_containers_memory(
    tmp_path: Path, runtime: str, memory: int
) -> None:
    """Inside a job's cgroup, both containers of an isolated Apptainer run count against
    the job: its --mem must hold both limits, or the job's limit would cut a run short."""
    task = write_task(tmp_path / "bench", tag="mem")
    backend = SlurmBackend(DockerBackend(), tmp_path / "shared")
    before = engine.selected_runtime()
    engine.use_runtime(runtime)
    try:
        pending = backend._pending(
            task,
            task.implementation(1),
            GOLDEN.encode(),
            _Image().image_id,
            settings={},
            limits=Limits(memory_mb=1024),
            gpus=None,
            hf_cache=None,
        )
    finally:
        engine.use_runtime(before)
        backend.close()
    assert pending.request.isolated  # a scored run is isolated where the task allows
    assert pending.resources.memory == f"{memory + MEMORY_MARGIN_MB}M"
