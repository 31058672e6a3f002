"""A task that declares a GPU (info.json ``hardware``) is not runnable here without --gpus.

Decided from the task's info.json before any container starts, so a GPU task does not run
its golden code on the CPU until it times out, and no candidate (nor anything it submits)
can change the decision either way.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from lmr_author.cli import main
from lmr_author.domain.task import Task, load_task
from lmr_author.images.task_images import ImageRef
from lmr_author.runtime import KIND_RUN, LABEL_KEY, TASK_LABEL
from lmr_author.sandbox.limits import Limits
from lmr_author.sandbox.needs import unmet_hardware
from tests.support.eval_cli import eval_json
from tests.support.sandbox_tasks import GOLDEN, MASKED, write_task


def _declare(task: Task, hardware: dict[str, Any] | None) -> Task:
    info = json.loads(task.info_path.read_text())
    if hardware is None:
        info.pop("hardware", None)
    else:
        info["hardware"] = hardware
    task.info_path.write_text(json.dumps(info, indent=4))
    return load_task(task.path)


def test_a_task_without_hardware_runs_anywhere(tmp_path: Path) -> None:
    task = write_task(tmp_path)
    assert unmet_hardware(task, Limits()) is None
    assert unmet_hardware(_declare(task, {"gpus": 0}), Limits()) is None


def test_a_gpu_task_without_gpus_names_what_it_declares_and_what_to_do(tmp_path: Path) -> None:
    task = _declare(write_task(tmp_path), {"gpus": 1, "gpu_memory_gb": 24})
    reason = unmet_hardware(task, Limits())
    assert reason is not None and reason.startswith("not runnable here")
    assert "1 GPU with 24 GB" in reason and "'hardware'" in reason
    assert "--gpus all" in reason and "--executor slurm" in reason
    assert unmet_hardware(task, Limits(gpus="all")) is None
    assert unmet_hardware(task, Limits(gpus="1")) is None


@pytest.mark.parametrize(("spec", "runnable"), [("1", False), ("device=3", False),
    ("2", True), ("3", True), ("device=0,1", True), ("all", True)])  # fmt: skip
def test_fewer_gpus_than_declared_is_not_runnable(
    tmp_path: Path, spec: str, runnable: bool
) -> None:
    task = _declare(write_task(tmp_path), {"gpus": 2})
    reason = unmet_hardware(task, Limits(gpus=spec))
    assert (reason is None) == runnable, reason
    if reason is not None:
        assert f"--gpus {spec} gives 1" in reason and "2 GPUs" in reason


class _NoEngine:
    """A Docker client that fails the test if anything is asked of it."""

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"the engine was used ({name}) for a task that cannot run here")


def test_no_candidate_run_touches_the_engine(tmp_path: Path) -> None:
    from lmr_author.sandbox.golden import run_against_golden_counts
    from lmr_author.sandbox.run_spec import RunSpec
    from lmr_author.sandbox.runner import LocalRunner

    task = _declare(write_task(tmp_path), {"gpus": 1})
    image = ImageRef(tag="t:1", image_id="sha256:x", built=False, workdir="/w")
    for candidate in (GOLDEN.encode(), MASKED.encode(), b"raise SystemExit(0)\n"):
        spec = RunSpec(task, task.implementations[0], candidate, image, Limits())
        run = run_against_golden_counts(spec, LocalRunner(_NoEngine()))  # type: ignore[arg-type]
        assert run.verdicts == [] and run.infra_error is not None
        assert "1 GPU" in str(run.infra_error)


def test_validate_run_reports_infra_without_building(tmp_path: Path) -> None:
    from lmr_author.validate.dynamic import run_dynamic_checks
    from lmr_author.validate.rules_run import RULE_INFRA

    task = _declare(write_task(tmp_path), {"gpus": 1})
    (finding,) = run_dynamic_checks(task, client=_NoEngine())  # type: ignore[arg-type]
    assert finding.rule == RULE_INFRA and finding.severity == "error"
    assert finding.file == "info.json" and finding.where == "$.hardware"
    assert "not a finding about the task's tests" in finding.message
    assert "1 GPU" in finding.message and "--gpus all" in finding.message


def _submission(root: Path, system: str, task: Task, source: str) -> Path:
    target = root / system / task.name / "calc_repo" / "calc.py"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(source)
    return root / system


def _created(client: Any, task: Task, since: float) -> int:
    """How many run containers the engine created for ``task`` since ``since`` (its event
    log; the image build's own containers are no run)."""
    labels = [f"{LABEL_KEY}={KIND_RUN}", f"{TASK_LABEL}={task.name}"]
    events = client.events(
        since=since,
        until=time.time() + 1,
        decode=True,
        filters={"type": "container", "event": "create", "label": labels},
    )
    return sum(1 for _ in events)


@pytest.mark.docker
@pytest.mark.usefixtures("image_cleanup", "no_leftovers")
def test_eval_gives_every_candidate_one_infra_error_and_starts_no_container(
    tmp_path: Path, docker_client: Any, capsys: Any
) -> None:
    bench = tmp_path / "bench"
    gpu = _declare(write_task(bench, tag="declgpu"), {"gpus": 1, "gpu_memory_gb": 16})
    cpu = write_task(bench, tag="declcpu")
    subs = tmp_path / "subs"
    systems = [
        _submission(subs, "golden", gpu, GOLDEN),
        _submission(subs, "masked", gpu, MASKED),
    ]
    for system in systems:
        _submission(subs, system.name, cpu, GOLDEN)
    # A submission's own info.json is no part of the task: it cannot undeclare the GPU
    # of one task, nor declare one for the other to turn a verdict into an infra error.
    forged = json.loads(gpu.info_path.read_text())
    del forged["hardware"]
    (subs / "golden" / gpu.name / "info.json").write_text(json.dumps(forged))
    declared = json.loads(cpu.info_path.read_text())
    declared["hardware"] = {"gpus": 1}
    (subs / "masked" / cpu.name / "info.json").write_text(json.dumps(declared))

    since = time.time()
    results = eval_json(bench, systems, tmp_path / "out", capsys, status=1)
    runs = {(run["system"], run["task"]): run for run in results["runs"]}
    for system in ("golden", "masked"):
        run = runs[(system, gpu.name)]
        assert run["verdict"] == "infra-error", run
        assert "not runnable here" in run["reason"] and "1 GPU with 16 GB" in run["reason"]
        assert "--gpus all" in run["reason"]
        assert runs[(system, cpu.name)]["verdict"] == "pass", runs[(system, cpu.name)]
    assert _created(docker_client, gpu, since) == 0
    assert _created(docker_client, cpu, since) >= 2  # the count sees the runs that happen


@pytest.mark.docker
@pytest.mark.usefixtures("image_cleanup", "no_leftovers")
def test_with_gpus_the_task_runs_as_before(tmp_path: Path, docker_client: Any, capsys: Any) -> None:
    """--gpus given: the run is attempted; this engine, without GPUs, says so itself."""
    if "nvidia" in (docker_client.info().get("Runtimes") or {}):
        pytest.skip("this engine can give GPUs")
    bench = tmp_path / "bench"
    gpu = _declare(write_task(bench, tag="declgpus"), {"gpus": 1})
    system = _submission(tmp_path / "subs", "golden", gpu, GOLDEN)
    results = eval_json(bench, [system], tmp_path / "out", capsys, "--gpus", "all", status=1)
    (run,) = results["runs"]
    assert run["verdict"] == "infra-error", run
    assert "cannot give containers GPUs (--gpus all)" in run["reason"], run
    assert "not runnable here" not in run["reason"]


def test_validate_run_cli_says_so_as_a_finding(tmp_path: Path, capsys: Any) -> None:
    task = _declare(write_task(tmp_path, tag="declvalidate"), {"gpus": 2})
    (task.path / "calc_repo" / "paper.pdf").write_bytes(b"%PDF-1.4\n")
    code = main(["validate", "--run", "--json", "--select", "infra", str(task.path)])
    document = json.loads(capsys.readouterr().out)
    assert code == 1
    (finding,) = document["tasks"][0]["findings"]
    assert finding["rule"] == "infra" and "2 GPUs" in finding["message"]


@pytest.mark.docker
@pytest.mark.usefixtures("image_cleanup", "no_leftovers")
def test_validate_run_fix_declares_the_gpu_the_golden_run_needs(
    tmp_path: Path, docker_client: Any, capsys: Any
) -> None:
    golden = GOLDEN.replace(
        "    return a + b", '    raise AssertionError("Torch not compiled with CUDA enabled")'
    )
    task = write_task(tmp_path, tag="declfix", golden=golden)
    (task.path / "calc_repo" / "paper.pdf").write_bytes(b"%PDF-1.4\n")
    before = task.info_path.read_text()

    def validate(*options: str) -> dict[str, Any]:
        code = main(["validate", "--run", "--json", "--timeout", "60", *options, str(task.path)])
        document: dict[str, Any] = json.loads(capsys.readouterr().out)
        assert code == 1, document
        return document

    hinted = validate()["tasks"][0]["findings"]
    assert [f["rule"] for f in hinted] == ["undeclared-gpu", "infra"], hinted
    assert task.info_path.read_text() == before  # no --fix, no change

    fixed = validate("--fix")
    assert [f["rule"] for f in fixed["tasks"][0]["findings"]] == ["infra"]
    assert [(f["rule"], f["where"]) for f in fixed["fixes"]] == [("undeclared-gpu", "$.hardware")]
    assert json.loads(task.info_path.read_text())["hardware"] == {"gpus": 1}

    since = time.time()
    (declared,) = validate()["tasks"][0]["findings"]
    assert declared["rule"] == "infra" and declared["where"] == "$.hardware"
    assert "declares it needs 1 GPU" in declared["message"]
    assert _created(docker_client, task, since) == 0
