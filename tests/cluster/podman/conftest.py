"""The sandbox's real fixtures, pointed at Podman's Docker-compatible API.

``docker_client`` here is a client of the Podman service (``.ci/podman-setup``), so the
adversarial fixtures imported below build their images and run their containers in
Podman. Skips without the service on a laptop; fails in CI.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from lmr_author.runtime import engine
from tests.adversarial.conftest import replay_task, unittest_task
from tests.conftest import IN_CI
from tests.support.sandbox_fixtures import image_cleanup, no_leftovers

__all__ = ["docker_client", "image_cleanup", "no_leftovers", "replay_task", "unittest_task"]


@pytest.fixture(scope="session")
def docker_client() -> Iterator[Any]:
    """A client of the Podman API service."""
    before = engine.selected_runtime()
    engine.use_runtime("podman")
    try:
        client = engine.get_client()
    except Exception as error:  # any failure means: no service
        if IN_CI:
            pytest.fail(f"CI=true but Podman's API is not reachable: {error}")
        pytest.skip(f"no Podman API service: {error}")
    finally:
        engine.use_runtime(before)
    assert "podman" in str(client.version()).lower(), "this is not Podman's API"
    yield client
    client.close()
