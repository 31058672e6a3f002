"""--runtime: which engine the container commands reach, and what it does to run keys."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from lmr_author.cli import build_parser
from lmr_author.eval_loop.backend import DockerBackend
from lmr_author.runtime import engine
from lmr_author.runtime.infra_error import InfraError


@pytest.fixture(autouse=True)
def _restore_runtime() -> Iterator[None]:
    before = engine.selected_runtime()
    yield
    engine.use_runtime(before)


@pytest.mark.parametrize(
    "argv",
    [
        ["eval", "benchmark", "--runtime", "podman"],
        ["validate", "benchmark", "--run", "--runtime", "podman"],
        ["generate", "benchmark", "--runtime", "podman"],
    ],
)
def test_every_container_command_selects_the_runtime(argv: list[str]) -> None:
    engine.use_runtime("docker")
    args = build_parser().parse_args(argv)
    assert args.runtime == "podman"
    assert engine.selected_runtime() == "podman"


def test_an_unknown_runtime_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["eval", "benchmark", "--runtime", "lxc"])
    assert "invalid choice: 'lxc'" in capsys.readouterr().err


def test_podman_without_a_service_names_the_socket_and_the_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A socket file nobody listens on: the client's ping fails at once.
    path = tmp_path / "podman.sock"
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(path))
    listener.close()
    monkeypatch.setenv("CONTAINER_HOST", f"unix://{path}")
    engine.use_runtime("podman")
    with pytest.raises(InfraError) as caught:
        engine.get_client(timeout=5)
    message = str(caught.value)
    assert f"unix://{path}" in message
    assert "podman system service" in message


def test_docker_run_keys_are_unchanged_and_podman_runs_are_their_own() -> None:
    engine.use_runtime("docker")
    docker_settings = DockerBackend().settings()
    assert "runtime" not in docker_settings
    engine.use_runtime("podman")
    podman_settings = DockerBackend().settings()
    assert podman_settings["runtime"] == "podman"
    assert {k: v for k, v in podman_settings.items() if k != "runtime"} == docker_settings


def test_apptainer_runs_are_their_own_and_sif_cache_is_handed_to_jobs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The SIF cache travels in the environment, which Slurm jobs inherit."""
    from lmr_author.sandbox.apptainer import SIF_CACHE_ENV, default_cache_folder

    monkeypatch.setenv(SIF_CACHE_ENV, "before")  # restored afterwards, whatever the option does
    engine.use_runtime("docker")
    args = build_parser().parse_args(
        ["eval", "benchmark", "--runtime", "apptainer", "--sif-cache", str(tmp_path / "sif")]
    )
    assert args.runtime == "apptainer" and engine.selected_runtime() == "apptainer"
    assert DockerBackend().settings()["runtime"] == "apptainer"
    assert default_cache_folder() == tmp_path / "sif"
    assert os.environ[SIF_CACHE_ENV] == str(tmp_path / "sif")


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        (["--sif-cache", "SIF"], "--sif-cache is for --runtime apptainer"),
        (["--runtime", "apptainer", "--gpus", "2"], "Apptainer cannot pick a number of GPUs"),
        (["--runtime", "apptainer", "--images", "IMG"], "--images is not needed"),
        (["--runtime", "apptainer", "--sif-cache", "FILE/sif"], "--sif-cache FILE/sif: cannot"),
    ],
)
def test_runtime_options_that_cannot_work_are_usage_errors_before_anything_runs(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    extra: list[str],
    words: str,
) -> None:
    from lmr_author.cli import main
    from lmr_author.sandbox.apptainer import SIF_CACHE_ENV

    monkeypatch.setenv(SIF_CACHE_ENV, "before")  # the option sets it; restored after
    monkeypatch.chdir(tmp_path)
    (tmp_path / "FILE").write_text("a file where a folder should be")
    (tmp_path / "IMG").mkdir()
    argv = ["eval", str(tmp_path / "no-benchmark"), "-s", str(tmp_path), *extra]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err
