"""Per-task GPUs on Slurm: ``eval --executor slurm`` on a benchmark mixing a CPU task and
a task whose info.json declares a GPU. This one-node cluster has no GPUs, so ``sbatch``
on PATH is a recorder: an array that asks for a GPU runs its elements itself, as Slurm
would with ``SLURM_JOB_GPUS=0``; every other array goes to the real ``sbatch``.
"""

from __future__ import annotations

import json
import shutil
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from lmr_author.cli import main
from tests.cluster.slurm.conftest import jobs_of
from tests.support.eval_cli import eval_argv, eval_json
from tests.support.sandbox_tasks import GOLDEN, write_task

pytestmark = [
    pytest.mark.docker,
    pytest.mark.slurm,
    pytest.mark.slow,
    pytest.mark.usefixtures("slurm", "no_leftovers", "image_cleanup"),
]

RECORDER = """\
#!{python}
import json, os, subprocess, sys

argv = sys.argv[1:]
if "--test-only" in argv:  # the options checked before anything is built: not an array
    if any(arg.startswith("--gres=") for arg in argv):
        sys.exit(0)  # a cluster with GPUs would take the request
    os.execv({real!r}, [{real!r}, *argv])
with open({log!r}, "a") as log:
    log.write(json.dumps(argv) + "\\n")
if not any(arg.startswith("--gres=") for arg in argv):
    os.execv({real!r}, [{real!r}, *argv])
last = int(next(a for a in argv if a.startswith("--array=")).rsplit("-", 1)[1])
for element in range(last + 1):
    env = dict(os.environ, SLURM_JOB_ID="990001", SLURM_ARRAY_TASK_ID=str(element),
               SLURM_JOB_GPUS="0")
    subprocess.run(["/bin/sh", argv[-1]], env=env, check=False)
print("990001")
"""


def _recording_sbatch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    real = shutil.which("sbatch")
    assert real is not None
    folder = tmp_path / "bin"
    folder.mkdir()
    log = tmp_path / "sbatch.log"
    script = folder / "sbatch"
    script.write_text(RECORDER.format(python=sys.executable, log=str(log), real=real))
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}:{Path(real).parent}:/usr/bin:/bin")
    return log


def _submission(root: Path, task: Path) -> None:
    target = root / "golden" / task.name / "calc_repo" / "calc.py"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(GOLDEN)


def _calls(log: Path) -> list[list[str]]:
    return [json.loads(line) for line in log.read_text().splitlines()]


def _gres(call: list[str]) -> str | None:
    return next((arg.split("=", 1)[1] for arg in call if arg.startswith("--gres=")), None)


def test_cpu_and_gpu_tasks_go_in_separate_arrays_with_their_own_gres(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, docker_client: Any
) -> None:
    bench = tmp_path / "bench"
    cpu = write_task(bench, tag="gcpu")
    gpu = write_task(bench, tag="ggpu")
    info = json.loads(gpu.info_path.read_text())
    info["hardware"] = {"gpus": 1, "gpu_memory_gb": 24}
    gpu.info_path.write_text(json.dumps(info, indent=4))
    subs = tmp_path / "subs"
    for task in (cpu, gpu):
        _submission(subs, task.path)
    log = _recording_sbatch(tmp_path, monkeypatch)
    out = tmp_path / "out"
    slurm = ["--executor", "slurm", "--gpu-types", "16=v100,40=a100,80=a100_80g"]

    results = eval_json(bench, [subs / "golden"], out, capsys, *slurm, status=1)

    calls = _calls(log)
    assert sorted(map(str, (_gres(call) for call in calls))) == ["None", "gpu:a100:1"]
    runs = {run["task"]: run for run in results["runs"]}
    assert runs[cpu.name]["verdict"] == "pass", runs[cpu.name]  # through the real Slurm
    gpu_run = runs[gpu.name]
    assert gpu_run["verdict"] == "infra-error", gpu_run  # never a verdict without the GPU
    if "nvidia" not in (docker_client.info().get("Runtimes") or {}):
        # The container was asked for the GPU Slurm gave the job, not for none nor all.
        assert "cannot give containers GPUs (--gpus device=0)" in gpu_run["reason"], gpu_run

    # Without --gpu-types: a plain gpu:1, and the memory wanted is said once.
    log.unlink()
    assert main(eval_argv(bench, [subs / "golden"], out, "--executor", "slurm")) == 1
    said = capsys.readouterr()
    [call] = _calls(log)  # the CPU task's run is stored: only the GPU run goes again
    assert _gres(call) == "gpu:1"
    assert {run["task"] for run in json.loads(said.out)["runs"]} == {cpu.name, gpu.name}
    note = f"{gpu.name} wants 1 GPU with 24 GB; Slurm is asked for gpu:1 without a memory"
    assert " ".join(said.err.split()).count(note) == 1, said.err
    assert jobs_of(tmp_path) == []


def test_a_gpu_request_slurm_refuses_is_an_error_before_anything_runs(
    tmp_path: Path, capsys: Any
) -> None:
    """The task declares a GPU; this cluster has no such generic resource: the request
    its array would carry is refused by ``sbatch --test-only`` before any image is built."""
    bench = tmp_path / "bench"
    gpu = write_task(bench, tag="grefused")
    info = json.loads(gpu.info_path.read_text())
    info["hardware"] = {"gpus": 1}
    gpu.info_path.write_text(json.dumps(info, indent=4))
    _submission(tmp_path / "subs", gpu.path)
    out = tmp_path / "out"
    code = main(eval_argv(bench, [tmp_path / "subs" / "golden"], out, "--executor", "slurm"))
    err = " ".join(capsys.readouterr().err.split())
    assert code == 2, err
    assert "Slurm refuses --gres=gpu:1" in err
    assert f"the GPUs task {gpu.name} declares in its info.json" in err
    assert not (out / "runs").exists() and jobs_of(tmp_path) == []


def test_a_gpu_task_in_a_job_without_gpus_is_an_infrastructure_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    # --gres for every run (here one this cluster can give: none) overrides the task's.
    bench = tmp_path / "bench"
    gpu = write_task(bench, tag="gnone")
    info = json.loads(gpu.info_path.read_text())
    info["hardware"] = {"gpus": 1}
    gpu.info_path.write_text(json.dumps(info, indent=4))
    _submission(tmp_path / "subs", gpu.path)
    real = shutil.which("sbatch")
    assert real is not None
    wrapper = tmp_path / "bin" / "sbatch"
    wrapper.parent.mkdir()
    # The real sbatch, with the user's --gres dropped: a job on a node without GPUs.
    wrapper.write_text(
        textwrap.dedent(
            f"""\
            #!/bin/sh
            for arg; do shift; case "$arg" in --gres=*) ;; *) set -- "$@" "$arg";; esac; done
            exec {real} "$@"
            """
        )
    )
    wrapper.chmod(0o755)
    monkeypatch.setenv("PATH", f"{wrapper.parent}:{Path(real).parent}:/usr/bin:/bin")

    results = eval_json(
        bench, [tmp_path / "subs" / "golden"], tmp_path / "out", capsys,
        "--executor", "slurm", "--gres", "gpu:0", status=1,
    )  # fmt: skip

    [run] = results["runs"]
    assert run["verdict"] == "infra-error", run
    assert f"task {gpu.name} needs 1 GPU" in run["reason"] and "has none" in run["reason"]
    assert jobs_of(tmp_path) == []
