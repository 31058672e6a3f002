"""A Podman that cannot enforce the sandbox's limits is refused, not used.

Rootless Podman on cgroups v1 (as here, and on many older clusters) accepts memory,
process and CPU limits through its Docker-compatible API and ignores them; a candidate
that exhausts memory would then not fail as it does in Docker. ``.ci/podman-setup``
starts such a service for the user ``lmr-rootless``; it must be refused with what to do.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from typing import Any

import pytest

from lmr_author.runtime import engine
from lmr_author.runtime.infra_error import InfraError
from tests.conftest import IN_CI

ROOTLESS = "unix:///run/lmr-rootless/podman.sock"


@pytest.fixture
def rootless_podman(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    ping = subprocess.run(
        ["curl", "-fsS", "--unix-socket", ROOTLESS.removeprefix("unix://"), "http://d/_ping"],
        capture_output=True,
    )
    if ping.returncode != 0:
        if IN_CI:
            pytest.fail(f"CI=true but no rootless Podman service at {ROOTLESS} (.ci/podman-setup)")
        pytest.skip(f"no rootless Podman service at {ROOTLESS}")
    before = engine.selected_runtime()
    monkeypatch.setenv("CONTAINER_HOST", ROOTLESS)
    engine.use_runtime("podman")
    yield
    engine.use_runtime(before)


@pytest.mark.podman
def test_a_rootless_podman_that_would_ignore_limits_is_refused(rootless_podman: None) -> None:
    with pytest.raises(InfraError) as caught:
        engine.get_client()
    message = caught.value.render()
    assert "rootless" in message and "cannot enforce the sandbox's limits" in message
    assert "memory" in message and "--runtime docker" in message


class _Info:
    def __init__(self, controllers: list[str]) -> None:
        self.controllers = controllers

    def json(self) -> dict[str, Any]:
        host = {"cgroupControllers": self.controllers, "cgroupVersion": "v2"}
        return {"host": {**host, "security": {"rootless": True}}}


class _Client:
    """What the check reads of a client: libpod's info at the API's address."""

    def __init__(self, controllers: list[str]) -> None:
        self.api = self
        self.base_url = "http+docker://localhost"
        self.info = _Info(controllers)
        self.closed = False

    def get(self, url: str, timeout: float) -> _Info:
        assert url.endswith("/libpod/info")
        return self.info

    def close(self) -> None:
        self.closed = True


@pytest.mark.parametrize(
    ("controllers", "refused"),
    [
        (["cpu", "memory", "pids", "io"], False),  # cgroups v2 with the controllers delegated
        (["cpu", "pids"], True),
        ([], True),
    ],
)
def test_the_controllers_a_podman_holds_decide(controllers: list[str], refused: bool) -> None:
    client = _Client(controllers)
    if refused:
        with pytest.raises(InfraError, match="cannot enforce"):
            engine._refuse_unenforced_limits(client)  # type: ignore[arg-type]
        assert client.closed
    else:
        engine._refuse_unenforced_limits(client)  # type: ignore[arg-type]
        assert not client.closed
