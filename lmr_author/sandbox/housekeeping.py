"""List and prune the images and containers lmr-author made, so disk use stays in hand.

Everything we make carries ``LABEL_KEY``; its value says what it is (``task-image``,
``run`` container, ``base`` image) and ``TASK_LABEL`` names the task. Pruning removes
stopped run containers and task images; running containers (an evaluation in progress)
and the base image are kept unless asked for.
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Collection, Iterable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from lmr_author.domain.task import Task
from lmr_author.runtime import (
    DEADLINE_LABEL,
    HOST_LABEL,
    KIND_BASE,
    KIND_RUN,
    KIND_TASK_IMAGE,
    LABEL_KEY,
    OWNER_LABEL,
    TASK_LABEL,
)
from lmr_author.runtime.infra_error import InfraError

if TYPE_CHECKING:
    import docker


@dataclass(frozen=True)
class ImageInfo:
    id: str
    tags: list[str]
    kind: str
    task: str
    size_bytes: int
    created: str


@dataclass(frozen=True)
class ContainerInfo:
    id: str
    name: str
    kind: str
    task: str
    status: str
    image: str


@dataclass(frozen=True)
class Resources:
    images: list[ImageInfo]
    containers: list[ContainerInfo]

    def to_json(self) -> dict[str, Any]:
        return {
            "images": [asdict(item) for item in self.images],
            "containers": [asdict(item) for item in self.containers],
        }


@dataclass
class PruneResult:
    removed_containers: list[str] = field(default_factory=list)
    removed_images: list[str] = field(default_factory=list)
    #: Sum of the removed images' sizes; layers they shared are counted in each.
    removed_image_bytes: int = 0
    #: Images kept because they are the current image of a task asked for.
    kept_images: list[str] = field(default_factory=list)
    #: Things that could not be removed, with why (e.g. an image a container still uses).
    skipped: list[str] = field(default_factory=list)
    dry_run: bool = False

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def list_resources(
    *, client: docker.DockerClient | None = None, task: str | None = None
) -> Resources:
    """Our images and containers (all states), optionally of one task only."""
    import docker.errors

    from lmr_author.runtime.engine import get_client

    client = client or get_client()
    filters: dict[str, Any] = {"label": [LABEL_KEY] + ([f"{TASK_LABEL}={task}"] if task else [])}
    # The low-level calls list in one request each; the high-level ones inspect every
    # item afterwards and fail when a running evaluation removes one in between.
    try:
        images = client.api.images(filters=filters)
        containers = client.api.containers(all=True, filters=filters)
    except docker.errors.DockerException as error:
        raise InfraError(f"the Docker engine failed to list resources: {error}") from None
    image_infos = []
    for image in images:
        labels = image.get("Labels") or {}
        image_infos.append(
            ImageInfo(
                id=str(image.get("Id", "")),
                tags=[tag for tag in image.get("RepoTags") or [] if tag != "<none>:<none>"],
                kind=labels.get(LABEL_KEY, ""),
                task=labels.get(TASK_LABEL, ""),
                size_bytes=int(image.get("Size") or 0),
                created=_iso(image.get("Created")),
            )
        )
    container_infos = []
    for container in containers:
        labels = container.get("Labels") or {}
        names = container.get("Names") or [""]
        container_infos.append(
            ContainerInfo(
                id=str(container.get("Id", "")),
                name=str(names[0]).lstrip("/"),
                kind=labels.get(LABEL_KEY, ""),
                task=labels.get(TASK_LABEL, ""),
                status=str(container.get("State", "")),
                image=str(container.get("Image", "")),
            )
        )
    image_infos.sort(key=lambda item: (item.task, item.created))
    container_infos.sort(key=lambda item: (item.task, item.name))
    return Resources(images=image_infos, containers=container_infos)


def prune(
    *,
    client: docker.DockerClient | None = None,
    task: str | None = None,
    images: bool = True,
    containers: bool = True,
    include_running: bool = False,
    include_base: bool = False,
    keep_tags: Collection[str] = (),
    dry_run: bool = False,
) -> PruneResult:
    """Remove our containers (stopped ones unless ``include_running``) and task images.

    Images tagged with one of ``keep_tags`` stay (see `current_tags`), and so does the
    base image unless ``include_base``. With ``dry_run`` nothing is removed and the
    result says what would be.
    """
    import docker.errors

    from lmr_author.runtime.engine import get_client

    client = client or get_client()
    found = list_resources(client=client)
    if task is not None:  # the task's own images and new-task's environment images of it
        found = Resources(
            images=[i for i in found.images if belongs_to(i.task, task)],
            containers=[c for c in found.containers if c.task == task],
        )
    result = PruneResult(dry_run=dry_run)
    if containers:
        for item in found.containers:
            if item.kind != KIND_RUN:
                continue  # e.g. a build step's container, which inherits the base's label
            if item.status == "running" and not include_running:
                result.skipped.append(f"container {item.name}: running (use --running)")
                continue
            if not dry_run:
                try:
                    client.api.remove_container(item.id, force=True)
                except docker.errors.NotFound:
                    continue
                except docker.errors.APIError as error:
                    result.skipped.append(f"container {item.name}: {error.explanation or error}")
                    continue
            result.removed_containers.append(item.name)
    if images:
        wanted = {KIND_TASK_IMAGE, KIND_BASE} if include_base else {KIND_TASK_IMAGE}
        _remove_images(
            client, [i for i in found.images if i.kind in wanted], keep_tags, dry_run, result
        )
    return result


def _remove_images(
    client: docker.DockerClient,
    images: Iterable[ImageInfo],
    keep_tags: Collection[str],
    dry_run: bool,
    result: PruneResult,
) -> None:
    import docker.errors

    for image in images:
        name = image.tags[0] if image.tags else image.id[:19]
        if any(tag in keep_tags for tag in image.tags):
            result.kept_images.append(name)
            continue
        if not dry_run:
            try:
                client.images.remove(image.id, force=True)
            except docker.errors.ImageNotFound:
                continue
            except docker.errors.APIError as error:
                result.skipped.append(f"image {name}: {error.explanation or error}")
                continue
        result.removed_images.append(name)
        result.removed_image_bytes += image.size_bytes


#: The environment images new-task builds for a draft are named ``<task>-env-<key>``
#: (key: the draft's working tree), so that they count as the task's images.
ENVIRONMENT_INFIX = "-env-"


def belongs_to(label: str, task: str) -> bool:
    """Whether an image labelled ``label`` is one of ``task``'s: its own, or an
    environment image new-task built for it (``<task>-env-<key>``)."""
    return label == task or label.startswith(task + ENVIRONMENT_INFIX)


def remove_tags(tags: Iterable[str], *, client: docker.DockerClient | None = None) -> PruneResult:
    """Remove these tags of ours: each image goes with its last tag, unless a container
    uses it (then it stays, and the result says so). Removing by tag never touches an
    image that someone else tagged too."""
    import docker.errors

    from lmr_author.runtime.engine import get_client

    client = client or get_client()
    result = PruneResult()
    for tag in tags:
        try:
            image = client.images.get(tag)
            labels = (image.attrs.get("Config") or {}).get("Labels") or {}
            if labels.get(LABEL_KEY) != KIND_TASK_IMAGE:
                continue  # not an image we built: never ours to remove
            client.images.remove(tag)
        except docker.errors.ImageNotFound:
            continue
        except docker.errors.APIError as error:
            result.skipped.append(f"image {tag}: {error.explanation or error}")
            continue
        except docker.errors.DockerException as error:
            raise InfraError(f"the Docker engine failed to remove {tag}: {error}") from None
        result.removed_images.append(tag)
    return result


def current_tags(
    tasks: Iterable[Task],
    *,
    client: docker.DockerClient | None = None,
    base_image: str | None = None,
) -> set[str]:
    """The tags the tasks' images have now (what `ensure_image` would use), to keep."""
    from lmr_author.images.task_images import plan_build
    from lmr_author.runtime.engine import get_client

    client = client or get_client()
    return {plan_build(task, client=client, base_image=base_image).tag for task in tasks}


def _iso(timestamp: Any) -> str:
    if isinstance(timestamp, int | float):
        return datetime.fromtimestamp(timestamp, tz=UTC).isoformat()
    return str(timestamp or "")


@dataclass
class OrphanSweep:
    """Run containers left by evaluations that died, found (and removed) at a start."""

    removed: list[str] = field(default_factory=list)
    #: Why each was taken for left over ("owner 1234 is gone", "deadline passed").
    reasons: list[str] = field(default_factory=list)


def remove_orphans(
    *, client: docker.DockerClient | None = None, now: float | None = None
) -> OrphanSweep:
    """Remove run containers whose owner process is gone or whose deadline has passed.

    Only containers that carry our owner labels are considered; one whose owner runs on
    this host and is alive, before its deadline, is another evaluation's and is kept.
    Containers of another host are removed only once past their deadline.
    """
    import docker.errors

    from lmr_author.runtime.engine import get_client

    client = client or get_client()
    now = time.time() if now is None else now
    host = socket.gethostname()
    sweep = OrphanSweep()
    try:
        found = client.api.containers(
            all=True, filters={"label": [f"{LABEL_KEY}={KIND_RUN}", OWNER_LABEL]}
        )
    except docker.errors.DockerException as error:
        raise InfraError(f"the Docker engine failed to list containers: {error}") from None
    for container in found:
        labels = container.get("Labels") or {}
        why = _left_over(labels, host, now)
        if why is None:
            continue
        try:
            client.api.remove_container(container["Id"], force=True)
        except docker.errors.NotFound:
            continue
        except docker.errors.APIError:
            continue  # being removed by someone else right now
        names = container.get("Names") or [container["Id"][:12]]
        sweep.removed.append(str(names[0]).lstrip("/"))
        sweep.reasons.append(why)
    return sweep


def _left_over(labels: dict[str, str], host: str, now: float) -> str | None:
    """Why a run container is left over, or None when its owner may still need it."""
    try:
        deadline = float(labels.get(DEADLINE_LABEL, ""))
    except ValueError:
        deadline = None
    if deadline is not None and now > deadline:
        return "its deadline passed"
    if labels.get(HOST_LABEL) != host:
        return None
    try:
        pid = int(labels.get(OWNER_LABEL, ""))
    except ValueError:
        return None
    if pid == os.getpid() or _alive(pid):
        return None
    return f"its evaluation (pid {pid}) is gone"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's live process
    return True


def kill_own_runs(*, client: docker.DockerClient) -> int:
    """Kill (and remove) the run containers this process started: a second Ctrl-C.
    No new one is made after this (a run cut short is not tried again)."""
    import docker.errors

    from lmr_author.sandbox.container_life import stop_new_containers

    stop_new_containers()

    host = socket.gethostname()
    killed = 0
    try:
        found = client.api.containers(
            all=True, filters={"label": [f"{OWNER_LABEL}={os.getpid()}", f"{HOST_LABEL}={host}"]}
        )
    except docker.errors.DockerException:
        return 0
    for container in found:
        try:
            client.api.remove_container(container["Id"], force=True)
            killed += 1
        except docker.errors.DockerException:
            continue
    return killed
