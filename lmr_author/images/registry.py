"""Task images through a registry the user names: pushed once, pulled by id on the nodes.

A pushed image is named ``REGISTRY/<task image name>:sha256-<id hex>``: the tag says
which image id it must be. A node that lacks the image a run was keyed with pulls that
name and accepts what it gets only when the pulled image has exactly that id (the
config digest, which a push and a pull keep), so a registry that serves anything else
(a moved tag, a forged push) cannot change what a run executes.
"""

from __future__ import annotations

import contextlib
import re
from typing import TYPE_CHECKING, Any

from lmr_author.domain.task import Task
from lmr_author.images.task_images import ImageRef, image_by_id, image_name
from lmr_author.runtime.infra_error import InfraError
from lmr_author.util.errors import UserError

if TYPE_CHECKING:
    import docker

#: ``host[:port][/namespace...]``, lower case as image references must be.
_REGISTRY = re.compile(r"[a-z0-9.-]+(?::\d{1,5})?(?:/[a-z0-9._-]+)*")


def check_registry(value: str) -> str:
    """``value`` without a trailing slash, or a `UserError` saying what a registry is.

    Its first part must name a host (a dot, a port or ``localhost``), as Docker reads
    it: anything else would silently mean Docker Hub.
    """
    registry = value.rstrip("/")
    host = registry.split("/")[0]
    if not _REGISTRY.fullmatch(registry) or not ("." in host or ":" in host or host == "localhost"):
        raise UserError(
            f"{value!r} is not a registry to push to",
            hint="Give HOST[:PORT][/NAMESPACE] in lower case, e.g. "
            "registry.example.org:5000/lab (a bare name would mean Docker Hub).",
        )
    return registry


def remote_name(registry: str, task: Task, image_id: str) -> str:
    """Where ``image_id`` of ``task`` lives in ``registry``: its id is its tag."""
    return f"{registry}/{image_name(task)}:{image_id.replace(':', '-')}"


def push_image(client: docker.DockerClient, registry: str, task: Task, image: ImageRef) -> str:
    """Push ``image`` to ``registry``; its remote name with the manifest digest."""
    import docker.errors

    name = remote_name(registry, task, image.image_id)
    repository, _, tag = name.rpartition(":")
    try:
        client.images.get(image.image_id).tag(repository, tag)
        digest = ""
        for event in client.images.push(repository, tag, stream=True, decode=True):
            if "error" in event:
                raise InfraError(f"pushing {name} failed: {_said(event)}")
            digest = str((event.get("aux") or {}).get("Digest") or digest)
    except docker.errors.DockerException as error:
        raise InfraError(f"pushing {name} failed: {error}") from None
    finally:
        _untag(client, name)  # the local engine keeps the task's own tag only
    return f"{name}@{digest}" if digest else name


def pull_image(client: docker.DockerClient, registry: str, task: Task, image_id: str) -> ImageRef:
    """Pull the image a run was keyed with; `InfraError` unless it has exactly that id."""
    import docker.errors

    name = remote_name(registry, task, image_id)
    repository, _, tag = name.rpartition(":")
    try:
        pulled = client.images.pull(repository, tag=tag)
    except docker.errors.DockerException as error:
        raise InfraError(
            f"could not pull {name}: {error}",
            hint=f"Push the task images first: lmr-author sandbox push BENCHMARK --to {registry}.",
        ) from None
    got = str(pulled.id)  # the remote tag stays: removing an only tag deletes the image
    if got != image_id:
        raise InfraError(
            f"{name} is image {got[:19]}, not the {image_id[:19]} the run was keyed with",
            hint="Push the task images again; never move a tag lmr-author pushed.",
        )
    found = image_by_id(client, task, image_id)
    if found is None:
        raise InfraError(f"{name} is not an image of task {task.name}")
    return found


def _untag(client: docker.DockerClient, name: str) -> None:
    import docker.errors

    with contextlib.suppress(docker.errors.DockerException):  # nothing to undo
        client.images.remove(name, noprune=True)


def _said(event: dict[str, Any]) -> str:
    detail = event.get("errorDetail") or {}
    return " ".join(str(detail.get("message") or event.get("error")).split())[:300]
