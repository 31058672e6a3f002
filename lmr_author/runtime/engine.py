"""One way to reach the container engine, with a readable error when it is not there.

Two runtimes speak the Docker Engine API: dockerd (the default, found through
DOCKER_HOST etc.) and Podman's API service (``podman system service``, started by
``.ci/podman-setup``). A third, Apptainer, has no daemon: its task images are built by
dockerd and converted to SIF files (`lmr_author.sandbox.apptainer`), so its client is
dockerd's. Each is one `Runtime` object; the command line picks one per process with
``--runtime``.
"""

from __future__ import annotations

import os
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from lmr_author.runtime.infra_error import InfraError

if TYPE_CHECKING:
    import docker

DEFAULT_PODMAN_HOST = "unix:///run/podman/podman.sock"


def podman_host() -> str:
    """The Podman API socket: CONTAINER_HOST (Podman's own variable) or the default."""
    return os.environ.get("CONTAINER_HOST") or DEFAULT_PODMAN_HOST


class Runtime:
    """One container runtime: how its engine is reached and what its runs are.

    Every question that differs between runtimes is answered here, once: callers ask
    the selected runtime (`current_runtime`), never compare its name.
    """

    #: The ``--runtime`` value, the wire's and (but for Docker) the run keys' name.
    name: str = "docker"
    #: Runs are ``apptainer exec`` of the image's SIF (converted once per image from the
    #: engine's image), not containers of the engine: a node may run them without one;
    #: they are this process's children (so they start in its cgroup, and a Slurm
    #: worker places them in its job's); an isolated candidate runs apart, in a second
    #: one with the same limits (Docker and Podman fork it inside the test's container).
    runs_from_sif: bool = False
    #: Whether a run key names the runtime: another runtime enforces the limits with its
    #: own code (crun, its own cgroup and tmpfs handling), so its verdicts are its own
    #: runs; Docker's keys stay as they were before there were others.
    keyed: bool = True

    def client(self, *, timeout: float = 60.0, max_pool_size: int = 16) -> docker.DockerClient:
        """A client of this runtime's engine, pinged once; `InfraError` if unreachable.

        One client may be shared by worker threads; ``max_pool_size`` bounds its open
        connections (give at least the number of workers).
        """
        import docker.errors
        import requests

        try:
            client = self._connect(timeout, max_pool_size)
            client.ping()
        except (docker.errors.DockerException, requests.RequestException) as error:
            raise self._unreachable(error) from None
        self._check(client)
        return client

    def settings(self) -> dict[str, str]:
        """What this runtime adds to a run's sandbox settings (part of its run key)."""
        return {"runtime": self.name} if self.keyed else {}

    def _connect(self, timeout: float, max_pool_size: int) -> docker.DockerClient:
        import docker

        # DOCKER_HOST=ssh://user@host: the system's ssh, which reads the user's own
        # configuration, agent and known hosts (the SDK's default needs paramiko).
        remote = os.environ.get("DOCKER_HOST", "").startswith("ssh://")
        return docker.from_env(
            timeout=int(timeout), max_pool_size=max_pool_size, use_ssh_client=remote
        )

    def _unreachable(self, error: Exception) -> InfraError:
        return InfraError(
            f"cannot reach the Docker engine ({error})",
            hint="Start dockerd (or Docker Desktop) and check DOCKER_HOST; "
            "then run the command again.",
        )

    def _check(self, client: docker.DockerClient) -> None:
        """Refuse an engine that would not enforce the sandbox (closing ``client``)."""


class DockerRuntime(Runtime):
    name = "docker"
    keyed = False


class PodmanRuntime(Runtime):
    """Podman's Docker-compatible API service (``podman system service``)."""

    name = "podman"

    def _connect(self, timeout: float, max_pool_size: int) -> docker.DockerClient:
        import docker

        return docker.DockerClient(
            base_url=podman_host(), timeout=int(timeout), max_pool_size=max_pool_size
        )

    def _unreachable(self, error: Exception) -> InfraError:
        return InfraError(
            f"cannot reach the Podman API at {podman_host()} ({error})",
            hint="Start it with 'podman system service --time=0 "
            f"{podman_host()}' (or run .ci/podman-setup), or set CONTAINER_HOST; "
            "then run the command again.",
        )

    def _check(self, client: docker.DockerClient) -> None:
        _refuse_unenforced_limits(client)


class ApptainerRuntime(Runtime):
    """Apptainer: no daemon. Task images are built by dockerd (so its client is
    dockerd's) and converted to SIF files (`lmr_author.sandbox.apptainer`)."""

    name = "apptainer"
    runs_from_sif = True


_RUNTIMES: dict[str, Runtime] = {
    runtime.name: runtime for runtime in (DockerRuntime(), PodmanRuntime(), ApptainerRuntime())
}
RUNTIMES = tuple(_RUNTIMES)

_current: Runtime = _RUNTIMES["docker"]


def use_runtime(name: str) -> None:
    """Make ``name`` (one of `RUNTIMES`) the runtime of the rest of the process."""
    global _current
    if name not in _RUNTIMES:
        raise ValueError(f"unknown container runtime {name!r}")
    _current = _RUNTIMES[name]


def current_runtime() -> Runtime:
    """The runtime ``--runtime`` selected for this process (Docker unless told)."""
    return _current


def selected_runtime() -> str:
    """The selected runtime's name (what a Slurm request carries to its node)."""
    return _current.name


#: The cgroup new containers are created under (None: the engine's own); a Slurm
#: worker sets its job's, so that the job's cgroup counts and limits the test.
_cgroup_parent: str | None = None


def use_cgroup_parent(path: str | None) -> None:
    global _cgroup_parent
    _cgroup_parent = path


def selected_cgroup_parent() -> str | None:
    return _cgroup_parent


def get_client(*, timeout: float = 60.0, max_pool_size: int = 16) -> docker.DockerClient:
    """A client of the selected runtime's engine (`Runtime.client`)."""
    return _current.client(timeout=timeout, max_pool_size=max_pool_size)


#: What the sandbox's limits need of a Podman (its libpod info's cgroupControllers).
NEEDED_CONTROLLERS = frozenset({"memory", "pids", "cpu"})


def _refuse_unenforced_limits(client: docker.DockerClient) -> None:
    """A Podman that would ignore the memory, process or CPU limit (rootless on cgroups
    v1, or v2 without those controllers delegated) is refused: there a candidate that
    exhausts memory would not fail as it does everywhere else. Docker-compatible /info
    claims the limits anyway; libpod's own info says which controllers it holds."""
    import requests

    try:
        info = client.api.get(f"{client.api.base_url}/v4.0.0/libpod/info", timeout=30)
        host = info.json()["host"]
        controllers = set(host.get("cgroupControllers") or [])
        rootless = bool((host.get("security") or {}).get("rootless"))
    except (requests.RequestException, ValueError, KeyError, TypeError) as error:
        client.close()
        raise InfraError(f"cannot read this Podman's info ({error})") from None
    missing = sorted(NEEDED_CONTROLLERS - controllers)
    if missing:
        client.close()
        raise InfraError(
            f"this Podman ({'rootless' if rootless else 'rootful'}, {host.get('cgroupVersion')} "
            f"cgroups) cannot enforce the sandbox's limits: it lacks the cgroup "
            f"controller(s) {', '.join(missing)}, so it would ignore them",
            hint="Use a rootful Podman, or a rootless one on cgroups v2 with memory, pids "
            "and cpu delegated to the user (systemd: Delegate=memory pids cpu), or "
            "--runtime docker.",
        )


def brief_get(client: Any, path: str, *args: str, timeout: float) -> Any:
    """GET ``path`` (its ``{0}`` filled with ``args``) of the engine's API with a short
    ``timeout`` of its own (the client's is a minute): probing an engine that may have
    stalled must not hang that long. JSON answers are decoded."""
    api = client.api
    return api._result(api._get(api._url(path, *args), timeout=timeout), path != "/_ping")


#: Seconds an engine call that moves a whole image may take: the engine can take minutes
#: before it streams the first byte of a task image of many GB (a CUDA stack).
BULK_TIMEOUT_S = 3600.0


@contextmanager
def bulk_client() -> Iterator[docker.DockerClient]:
    """A client of the selected engine for saving or loading whole images, closed after."""
    client = get_client(timeout=BULK_TIMEOUT_S, max_pool_size=2)
    try:
        yield client
    finally:
        client.close()


#: Podman's compatible API asks for nofile and nproc of 1048576 in every container whose
#: request names any ulimit; where its own hard limits are lower (inside a container, as
#: in CI; on a tuned host) no container starts ("error setting rlimit type 6/7"). These
#: fit under any usual hard limit and leave tests room (the pids limit bounds processes).
PODMAN_ULIMITS = {"nofile": 4096, "nproc": 4096}

_is_podman: weakref.WeakKeyDictionary[Any, bool] = weakref.WeakKeyDictionary()


def is_podman(client: Any) -> bool:
    """Whether ``client`` talks to Podman's API (asked once per client)."""
    if client not in _is_podman:
        components = client.version().get("Components") or []
        _is_podman[client] = any("podman" in str(c.get("Name", "")).lower() for c in components)
    return _is_podman[client]


def runtime_ulimits(client: Any) -> dict[str, int]:
    """Limits a container must name explicitly on this client's runtime (name -> value)."""
    return dict(PODMAN_ULIMITS) if is_podman(client) else {}


def tmpfs_owner(client: Any, uid: int, gid: int) -> str:
    """The tmpfs mount option that makes ``uid:gid`` (the container's user) its owner.

    Podman (4.3) refuses the kernel's uid=/gid= options and has its own: ``U`` chowns
    the mount to the user the container runs as.
    """
    return "U" if is_podman(client) else f"uid={uid},gid={gid}"
