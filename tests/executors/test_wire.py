"""The shared-folder files of a remote run: what a node writes is read back exactly, and
anything else is refused (an infrastructure error upstream, never a verdict)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lmr_author.eval_loop.backend import DockerBackend
from lmr_author.executors.wire import Request, load_result, save_result, sha256
from lmr_author.executors.worker import main, run_request
from lmr_author.sandbox.run_result import ImplementationRun, Phase, TestVerdict


def _run(**timed: object) -> ImplementationRun:
    verdict = TestVerdict(
        test_file="unit_test/unit_test_1.py",
        verdict="fail",
        reason="2 of 3 tests failed",
        duration_s=1.25,
        log="Test Failed\n",
        exit_code=1,
        legacy_log="Test Failed\n",
        protocol="published",
        tests_run=3,
        legacy_passed=1,
        **timed,  # type: ignore[arg-type]
    )
    return ImplementationRun(verdicts=[verdict], image_id="sha256:abc", wall_s=2.0)


TIMED = {
    "phases": (Phase("container", 0.75), Phase("test", 1.5), Phase("calls", 0.25, inner=True)),
    "cpu_s": 2.5,
}


@pytest.mark.parametrize("timed", [{}, TIMED], ids=["untimed", "timed"])
def test_a_result_reads_back_as_written(tmp_path: Path, timed: dict[str, object]) -> None:
    path = tmp_path / "r.json"
    save_result(path, _run(**timed))
    assert load_result(path) == _run(**timed)


@pytest.mark.parametrize(
    "change",
    [
        lambda d: d.update(wire_version=99),
        lambda d: d.pop("infra_error"),
        lambda d: d["verdicts"][0].update(verdict=["pass"]),
        lambda d: d["verdicts"][0].update(extra="field"),
        lambda d: d.update(verdicts="pass"),
        lambda d: d["verdicts"][0].update(phases=[["test", 1.0]]),
        lambda d: d["verdicts"][0].update(phases=[{"name": "test", "seconds": "1"}]),
        lambda d: d["verdicts"][0]["phases"][0].update(inner=1),
        lambda d: d["verdicts"][0].update(cpu_s="2.5"),
        lambda d: d["verdicts"][0].pop("phases"),
    ],
)
def test_a_malformed_result_is_refused(tmp_path: Path, change: object) -> None:
    path = tmp_path / "r.json"
    save_result(path, _run(**TIMED))
    data = json.loads(path.read_text())
    change(data)  # type: ignore[operator]
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError, match="unreadable result"):
        load_result(path)


def _request(tmp_path: Path, **changes: object) -> Request:
    candidate = tmp_path / "c.py"
    candidate.write_bytes(b"def f():\n    return 1\n")
    fields: dict[str, object] = {
        "task_path": str(tmp_path / "no-task"),
        "implementation": 1,
        "candidate_path": str(candidate),
        "candidate_sha256": sha256(candidate.read_bytes()),
        "runtime": "docker",
        "base_image": None,
        "timeout_s": None,
        "protocol": "auto",
        "image_id": "sha256:abc",
        "settings": DockerBackend().settings(),
        "result_path": str(tmp_path / "result.json"),
    }
    fields.update(changes)
    return Request(**fields)  # type: ignore[arg-type]


def test_the_worker_refuses_a_changed_candidate(tmp_path: Path) -> None:
    request = _request(tmp_path, candidate_sha256=sha256(b"other"))
    assert "candidate file" in str(run_request(request))


def test_the_worker_refuses_other_settings(tmp_path: Path) -> None:
    request = _request(tmp_path, settings={"harness": "older"})
    assert "settings" in str(run_request(request))


def test_a_refusal_is_written_as_an_infrastructure_error(tmp_path: Path) -> None:
    request = _request(tmp_path, settings={})
    request.save(tmp_path / "req.json")
    assert main([str(tmp_path / "req.json")]) == 1
    outcome = load_result(Path(request.result_path))
    assert outcome.verdicts == [] and "settings" in str(outcome.infra_error)


@pytest.mark.parametrize("option", [["--gres", "gpu:1"], ["--partition", "gpu"]])
def test_slurm_options_without_slurm_are_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: list[str]
) -> None:
    from lmr_author.cli import main as cli

    bench = Path(__file__).resolve().parents[2] / "benchmark"
    argv = ["eval", str(bench), "-s", str(bench / "submissions" / "correct"), *option]
    assert cli([*argv, "--output", str(tmp_path / "out")]) == 2
    assert f"{option[0]} is for --executor slurm" in capsys.readouterr().err


def test_the_worker_runs_with_the_submitters_gpus_and_model_cache(tmp_path: Path) -> None:
    """A node builds its sandbox with the request's --gpus and --hf-cache: the settings
    it checks are then the submitter's, not those of a sandbox without them."""
    hub = tmp_path / "hub"
    hub.mkdir()
    submitted = DockerBackend(gpus="all", hf_cache=str(hub)).settings()
    assert submitted != DockerBackend().settings()
    given = _request(tmp_path, settings=submitted, gpus="all", hf_cache=str(hub))
    # Past the settings check: what stops it next is the missing task folder.
    from lmr_author.domain.task import TaskLoadError

    with pytest.raises(TaskLoadError):
        run_request(given)
    without = _request(tmp_path, settings=submitted)
    assert "settings" in str(run_request(without))
    saved = tmp_path / "req.json"
    given.save(saved)
    assert Request.load(saved) == given


def test_a_raw_run_spec_reads_back_from_its_request(tmp_path: Path) -> None:
    """What a node runs is the spec the submitter sent: limits, protocol, counts held
    to, isolation and the tests' own reads; the candidate travels as a file."""
    import dataclasses

    from lmr_author.executors.wire import raw_request_fields
    from lmr_author.images.task_images import ImageRef
    from lmr_author.sandbox.decision import Expected
    from lmr_author.sandbox.limits import Limits
    from lmr_author.sandbox.run_spec import RunSpec
    from tests.support.sandbox_tasks import write_task

    task = write_task(tmp_path / "task")
    image = ImageRef(tag="t:1", image_id="sha256:abc", built=False, workdir="/w")
    sent = RunSpec(
        task,
        task.implementations[0],
        b"def f(): pass\n",
        image,
        Limits(timeout_s=30.0, gpus="all"),
        protocol="published",
        expected={"unit_test/unit_test_1.py": Expected(tests=3)},
        isolated=False,
        test_reads=("data/fixture.pt",),
    )
    request = dataclasses.replace(
        _request(tmp_path, candidate_path=None, candidate_sha256=None),
        **raw_request_fields(sent),
    )
    request.save(tmp_path / "req.json")
    loaded = Request.load(tmp_path / "req.json")
    assert loaded == request and loaded.kind == "raw"
    assert loaded.raw_spec(task, image, sent.candidate) == sent
    masked = RunSpec(task, task.implementations[0], None, image)
    back = dataclasses.replace(request, **raw_request_fields(masked)).raw_spec(task, image, None)
    assert back == masked


def test_a_request_written_before_raw_runs_is_a_scored_one(tmp_path: Path) -> None:
    request = _request(tmp_path)
    request.save(tmp_path / "req.json")
    data = json.loads((tmp_path / "req.json").read_text())
    for name in ("kind", "limits", "expected"):
        data.pop(name)
    (tmp_path / "req.json").write_text(json.dumps(data))
    assert Request.load(tmp_path / "req.json").kind == "scored"


def test_a_field_the_worker_does_not_know_is_refused_not_misread(tmp_path: Path) -> None:
    # What an older worker does with a raw request: it cannot run it as a scored one.
    request = _request(tmp_path)
    request.save(tmp_path / "req.json")
    data = json.loads((tmp_path / "req.json").read_text())
    data["kind_of_the_future"] = "x"
    (tmp_path / "req.json").write_text(json.dumps(data))
    with pytest.raises(TypeError):
        Request.load(tmp_path / "req.json")


def test_the_worker_refuses_a_raw_run_under_other_limits(tmp_path: Path) -> None:
    from dataclasses import asdict

    from lmr_author.executors.wire import raw_settings
    from lmr_author.sandbox.limits import Limits

    keyed = raw_settings(Limits(timeout_s=30.0), "auto", "docker")
    request = _request(tmp_path, kind="raw", settings=keyed, limits=asdict(Limits()))
    assert "settings" in str(run_request(request))
    accepted = _request(tmp_path, kind="raw", settings=keyed, limits=asdict(Limits(timeout_s=30.0)))
    from lmr_author.domain.task import TaskLoadError

    with pytest.raises(TaskLoadError):  # past the check: the task folder is missing
        run_request(accepted)


def test_a_scored_request_needs_a_candidate(tmp_path: Path) -> None:
    request = _request(tmp_path, candidate_path=None, candidate_sha256=None)
    assert "not a run this worker knows" in str(run_request(request))


@pytest.mark.parametrize(
    "change",
    [
        lambda v: v.update(tests_run="3"),
        lambda v: v.update(tests_run=True),
        lambda v: v.update(legacy_passed=1.5),
        lambda v: v.pop("protocol"),
    ],
)
def test_a_result_with_bad_counts_is_refused(tmp_path: Path, change: object) -> None:
    # A raw golden run's counts become the proof candidates are held to.
    path = tmp_path / "r.json"
    save_result(path, _run())
    data = json.loads(path.read_text())
    change(data["verdicts"][0])  # type: ignore[operator]
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError, match="unreadable result"):
        load_result(path)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--executor", "slurm"], "--executor is for validate --run"),
        (["--gres", "gpu:1"], "--gres is for validate --run"),
        (["--run", "--gres", "gpu:1"], "--gres is for --executor slurm"),
        (["--run", "--partition", "p"], "--partition is for --executor slurm"),
        (["--run", "--slurm-dir", "x"], "--slurm-dir is for --executor slurm"),
    ],
)
def test_validate_slurm_options_out_of_place_are_usage_errors(
    capsys: pytest.CaptureFixture[str], options: list[str], message: str
) -> None:
    from lmr_author.cli import main as cli

    task = Path(__file__).resolve().parents[2] / "benchmark" / "03-TopP"
    assert cli(["validate", str(task), "--select=infra", *options]) == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--gpu-types", "16=v100"], "--gpu-types is for --executor slurm"),
        (["--images", "."], "--images is for --executor slurm"),
        (["--gpu-types", "v100"], "is not MEMORY_GB=TYPE"),
        (["--executor", "slurm", "--images", "no-such-folder"], "--images no-such-folder"),
    ],
)
def test_eval_gpu_types_and_images_out_of_place_are_usage_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], options: list[str], message: str
) -> None:
    from lmr_author.cli import main as cli

    bench = Path(__file__).resolve().parents[2] / "benchmark"
    argv = ["eval", str(bench), "-s", str(bench / "submissions" / "correct"), *options]
    assert cli([*argv, "--output", str(tmp_path / "out")]) == 2
    assert message in capsys.readouterr().err
