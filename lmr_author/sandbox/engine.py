"""One way to reach the Docker engine, with a readable error when it is not there."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lmr_author.sandbox.errors import InfraError

if TYPE_CHECKING:
    import docker


def get_client(*, timeout: float = 60.0, max_pool_size: int = 16) -> docker.DockerClient:
    """A client of the engine named by the environment (DOCKER_HOST etc.), pinged once.

    One client may be shared by worker threads; ``max_pool_size`` bounds its open
    connections (give at least the number of workers). Raises `InfraError` when the
    engine cannot be reached.
    """
    import docker
    import docker.errors
    import requests

    try:
        client = docker.from_env(timeout=int(timeout), max_pool_size=max_pool_size)
        client.ping()
    except (docker.errors.DockerException, requests.RequestException) as error:
        raise InfraError(
            f"cannot reach the Docker engine ({error})",
            hint="Start dockerd (or Docker Desktop) and check DOCKER_HOST; "
            "then run the command again.",
        ) from None
    return client
