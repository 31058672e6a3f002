"""What a test container is given besides its image: GPUs and a Hugging Face model cache.

The published evaluation loop runs every test with ``--gpus device=0``, the host's whole
``~/.cache`` mounted writable and a hub token in the environment. We give GPUs only when
asked (``--gpus``), and of the model cache only its ``hub`` folder (model and dataset
snapshots), read-only: a candidate can load a model but cannot poison the cache for the
runs after it, and a token kept beside the snapshots never enters a container (none is
needed: the network is off, so the hub is always set offline, which also makes a missing
model fail at once instead of after network time-outs).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lmr_author.util.errors import UserError

if TYPE_CHECKING:
    import docker
    from docker.types import DeviceRequest

#: Where the hub folder of ``--hf-cache`` appears in the container.
HUB_MOUNT = "/opt/hf-hub"
#: The hub offline, always: with no network a look-up can only time out.
OFFLINE_ENV = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
#: Files of a Hugging Face home that hold credentials; never mounted.
_SECRET_NAMES = ("token", "stored_tokens")
_GPUS = re.compile(r"all|[1-9]\d{0,2}|device=\d{1,3}(,\d{1,3})*")


def parse_gpus(spec: str) -> str:
    """``--gpus`` as Docker's CLI reads it: ``all``, a count, or ``device=0,1``."""
    text = spec.strip()
    if not _GPUS.fullmatch(text):
        raise UserError(
            f"--gpus {spec!r} is not a GPU request",
            hint="Give --gpus all, a count such as --gpus 2, or devices such as "
            "--gpus device=0,1 (as 'docker run --gpus' takes them).",
        )
    return text


def device_requests(spec: str | None) -> list[DeviceRequest]:
    """The engine's device requests for a parsed ``--gpus`` value (none without one)."""
    if spec is None:
        return []
    from docker.types import DeviceRequest

    if spec == "all":
        return [DeviceRequest(count=-1, capabilities=[["gpu"]])]
    if spec.startswith("device="):
        ids = spec.removeprefix("device=").split(",")
        return [DeviceRequest(device_ids=ids, capabilities=[["gpu"]])]
    return [DeviceRequest(count=int(spec), capabilities=[["gpu"]])]


def hub_folder(path: Path) -> Path:
    """The folder of model snapshots inside ``--hf-cache DIR``, checked to be mountable.

    DIR may be a Hugging Face home (``~/.cache/huggingface``, holding ``hub/``) or the hub
    folder itself (holding ``models--<org>--<name>`` folders).
    """
    where = path.expanduser()
    if not where.is_dir():
        raise UserError(
            f"--hf-cache {path}: no such folder",
            hint="Give the Hugging Face cache the models were downloaded into, e.g. "
            "--hf-cache ~/.cache/huggingface.",
        )
    hub = where / "hub" if (where / "hub").is_dir() else where
    secrets = [name for name in _SECRET_NAMES if (hub / name).exists()]
    if secrets:
        raise UserError(
            f"--hf-cache {path}: the folder to mount holds credentials ({', '.join(secrets)})",
            hint="Candidates could read them: give the folder that holds 'hub/' (its hub "
            "folder is mounted alone), or move the token out of the cache.",
        )
    return hub.resolve()


def cache_fingerprint(hub: Path) -> dict[str, str]:
    """Which revision of each cached model or dataset the cache holds (for run keys).

    A run key changes when a model in the cache moves to another revision, not when the
    same cache sits at another path or on another machine.
    """
    revisions: dict[str, str] = {}
    try:
        repos = sorted(entry for entry in hub.iterdir() if "--" in entry.name)
    except OSError:
        return revisions
    for repo in repos:
        refs = repo / "refs"
        try:
            names = sorted(ref for ref in refs.rglob("*") if ref.is_file())
            found = [f"{ref.relative_to(refs)}={ref.read_text().strip()}" for ref in names]
        except OSError:
            found = []
        revisions[repo.name] = ";".join(found)
    return revisions


def cache_env(mounted: bool) -> dict[str, str]:
    """Environment of a test: the hub offline, and where the mounted snapshots are."""
    environment = dict(OFFLINE_ENV)
    if mounted:
        # Every name the hub libraries have read over the years (the published images pin
        # old versions); the home itself stays in the writable /tmp.
        for name in ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "TRANSFORMERS_CACHE"):
            environment[name] = HUB_MOUNT
        environment["HF_HOME"] = "/tmp/hf-home"
    return environment


def volumes(hub: str | None) -> dict[str, dict[str, str]]:
    """The read-only bind of the hub folder, if any."""
    return {hub: {"bind": HUB_MOUNT, "mode": "ro"}} if hub else {}


def settings(gpus: str | None, hub: str | None) -> Mapping[str, Any]:
    """What the provisions add to a run key: nothing when none are given."""
    found: dict[str, Any] = {}
    if gpus is not None:
        found["gpus"] = gpus
    if hub is not None:
        found["hf_cache"] = cache_fingerprint(Path(hub))
    return found


_SEEN_LOCK = threading.Lock()
#: (engine, hub folder) pairs whose folder the engine was seen to bind with its contents.
_VISIBLE: set[tuple[str, str]] = set()


def ensure_visible(client: docker.DockerClient, image: str, hub: str) -> None:
    """Check once per engine that it binds ``hub`` with what this machine sees in it.

    An engine binds paths of its own host: a remote engine (``DOCKER_HOST=ssh://...``) or
    one reached from inside a container would mount an empty folder of the same name,
    and every model would look missing. One short container lists the mount; an empty
    listing of a folder that is not empty here is an error naming the cause.
    """
    from lmr_author.runtime.infra_error import InfraError

    key = (str(client.api.base_url), hub)
    with _SEEN_LOCK:
        if key in _VISIBLE:
            return
    try:
        local = sorted(entry.name for entry in Path(hub).iterdir())
    except OSError:
        local = []
    if not local:
        return
    output = client.containers.run(
        image,
        ["ls", "-A", HUB_MOUNT],
        entrypoint=[],
        user="65534:65534",
        network_mode="none",
        volumes=volumes(hub),
        remove=True,
        stdout=True,
        stderr=False,
    )
    seen = bytes(output).decode("utf-8", "replace").split()
    if not seen:
        raise InfraError(
            f"the container engine does not see --hf-cache {hub}: it mounts an empty folder "
            "there (a remote engine, or one outside this container, binds paths of its own "
            "host)",
            hint="Give a cache folder on the engine's host, or run on the engine's host.",
        )
    with _SEEN_LOCK:
        _VISIBLE.add(key)
