"""One object per container runtime answers what differs between them: how its engine
is reached (and the error when it is not), whether runs are SIFs, and its part of the
run key. Docker's run keys name no runtime, so that keys made before there were others
stay valid; every other runtime's runs are its own."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from lmr_author.eval_loop.backend import DockerBackend
from lmr_author.runtime import engine
from lmr_author.runtime.infra_error import InfraError


@pytest.fixture(autouse=True)
def _restore_runtime() -> Iterator[None]:
    before = engine.selected_runtime()
    yield
    engine.use_runtime(before)


def test_each_name_selects_its_own_runtime() -> None:
    for name in engine.RUNTIMES:
        engine.use_runtime(name)
        assert engine.current_runtime().name == name == engine.selected_runtime()
    with pytest.raises(ValueError, match="unknown container runtime"):
        engine.use_runtime("lxc")
    assert engine.selected_runtime() == engine.RUNTIMES[-1]  # a refused name changes nothing


def test_only_apptainer_runs_from_sif_files() -> None:
    sif = {name: engine._RUNTIMES[name].runs_from_sif for name in engine.RUNTIMES}
    assert sif == {"docker": False, "podman": False, "apptainer": True}


def test_run_keys_name_every_runtime_but_docker() -> None:
    backend = DockerBackend()
    keys = {}
    for name in engine.RUNTIMES:
        engine.use_runtime(name)
        keys[name] = backend.settings()
    assert "runtime" not in keys["docker"]
    assert keys["podman"]["runtime"] == "podman"
    assert keys["apptainer"]["runtime"] == "apptainer"
    # Nothing else differs: the limits, protocol and harness are the same settings.
    for name in ("podman", "apptainer"):
        assert {k: v for k, v in keys[name].items() if k != "runtime"} == keys["docker"]


def test_an_unreachable_engine_names_the_runtime_and_how_to_start_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/lmr-author-docker.sock")
    monkeypatch.setenv("CONTAINER_HOST", "unix:///nonexistent/lmr-author-podman.sock")
    expected = {
        "docker": ("cannot reach the Docker engine", "Start dockerd"),
        "podman": ("lmr-author-podman.sock", "podman system service"),
        # Apptainer's images are built by dockerd: its engine is dockerd's.
        "apptainer": ("cannot reach the Docker engine", "Start dockerd"),
    }
    for name, (message, hint) in expected.items():
        engine.use_runtime(name)
        with pytest.raises(InfraError) as caught:
            engine.get_client(timeout=5)
        assert message in caught.value.message
        assert hint in (caught.value.hint or "")
