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
from lmr_author.runtime.infra_error import InfraError
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
