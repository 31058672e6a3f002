"""Task images, built once per content: the tag is a hash of everything that went in.

A task's image is built from its own Dockerfile with the task folder as context and
the build args the published Dockerfiles expect (``UID``, ``GID``, ``DIR`` = repo
folder). Where the Dockerfile's base cannot be pulled, ``base_image`` replaces the
image of every ``FROM`` that does not name an earlier build stage. The tag
``lmr-author/<task>:<hash>`` hashes the (rewritten) Dockerfile, every file of the
context (honouring ``.dockerignore``), the build args and the id of each base image, so
an unchanged task is never rebuilt and any change gives a new tag and a build.

The task's own info.json is not part of the context: nothing in a container reads it
(the host runs the tests it names), and what it says that a build uses (the repository
folder) is a build arg. So the metadata written after a task was proven (mutation
scores, equivalent mutants, strengthen's record) keeps the proven image's tag.
"""

from __future__ import annotations

import contextlib
import hashlib
import re
import tempfile
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lmr_author.domain.task import INFO_FILE, Task
from lmr_author.images.from_lines import rewrite_from
from lmr_author.runtime import KEY_LABEL, KIND_TASK_IMAGE, LABEL_KEY, TASK_LABEL
from lmr_author.runtime.infra_error import InfraError
from lmr_author.util.json_input import read_text

if TYPE_CHECKING:
    import docker

#: Bump when the way images are built changes, so old tags stop matching.
RECIPE_VERSION = "2"
IMAGE_REPOSITORY = "lmr-author"
DEFAULT_UID = 1000
DEFAULT_GID = 1000
#: Context files that never matter to a build but change whenever tests run, and what a
#: candidate must never read: the golden files (the answer) and the expected outputs of
#: replay tests. They are never sent to the engine, so no Dockerfile (not even a
#: hand-written ``COPY . /x``) can put them into a candidate's image. The task's
#: info.json (top level only) is metadata, not a build input: see the module's doc.
_ALWAYS_IGNORED = (
    "**/__pycache__",
    "**/*.pyc",
    ".git",
    "expected_outputs",
    "golden_files",
    INFO_FILE,
)
_BUILD_LOCKS: dict[str, threading.Lock] = {}
_BUILD_LOCKS_GUARD = threading.Lock()


@dataclass(frozen=True)
class ImageRef:
    """A built task image: its tag, its id, whether this call built it, and where the
    repository folder is inside it (tests run from there)."""

    tag: str
    image_id: str
    built: bool
    workdir: str
    user: str = ""


@dataclass(frozen=True)
class BuildPlan:
    """Everything that goes into a task image, and the tag it hashes to."""

    tag: str
    key: str
    dockerfile: str
    files: list[str]
    buildargs: dict[str, str]
    labels: dict[str, str]
    base_images: list[str]


def image_name(task: Task) -> str:
    """The repository part of a task image's tag: lowercase, Docker-safe."""
    safe = re.sub(r"[^a-z0-9._-]+", "-", task.name.lower()).strip("._-") or "task"
    return f"{IMAGE_REPOSITORY}/{safe}"


def context_files(task_dir: Path) -> list[str]:
    """Relative paths of the build context, as the engine would receive them."""
    from docker.utils.build import exclude_paths

    patterns = list(_ALWAYS_IGNORED)
    ignore_file = task_dir / ".dockerignore"
    if ignore_file.is_file():
        for line in ignore_file.read_text(encoding="utf-8", errors="replace").splitlines():
            line = line.strip()
            if line and not line.startswith("#"):
                patterns.append(line)
    paths = exclude_paths(str(task_dir), patterns, dockerfile="Dockerfile")
    return sorted(str(p) for p in paths)


def plan_build(
    task: Task,
    *,
    client: docker.DockerClient,
    base_image: str | None = None,
    uid: int = DEFAULT_UID,
    gid: int = DEFAULT_GID,
) -> BuildPlan:
    """Read the task folder and compute what a build would use and its content tag."""
    dockerfile_path = task.dockerfile_path
    missing = InfraError(
        "the task has no Dockerfile, so its test image cannot be built",
        file=dockerfile_path,
        hint="Write one (lmr-author new-task makes a scaffold from templates/Dockerfile).",
    )
    original = read_text(dockerfile_path, what="Dockerfile", missing=missing, error=InfraError)
    from lmr_author.images.certificates import base_for_build  # behind a TLS proxy

    trusted = base_for_build(client, dockerfile_path, base_image)
    dockerfile, bases = rewrite_from(original, trusted)
    named = rewrite_from(original, base_image)[1] if trusted != base_image else bases
    if not bases:
        raise InfraError(
            "the Dockerfile has no FROM line",
            file=dockerfile_path,
            hint="Start it with 'FROM <base image>'.",
        )
    buildargs = {"UID": str(uid), "GID": str(gid), "DIR": task.repo_folder_name}
    digest = hashlib.sha256()

    def feed(*parts: str | bytes) -> None:
        for part in parts:
            data = part.encode("utf-8") if isinstance(part, str) else part
            digest.update(len(data).to_bytes(8, "big"))
            digest.update(data)

    feed("recipe", RECIPE_VERSION, "dockerfile", dockerfile)
    for name, value in sorted(buildargs.items()):
        feed("arg", name, value)
    for base in bases:
        feed("base", base, _image_id_or_empty(client, base))
    files = context_files(task.path)
    for rel in files:
        full = task.path / rel
        if full.is_symlink():
            feed("link", rel, str(full.readlink()))
        elif full.is_file():
            mode = "x" if full.stat().st_mode & 0o111 else "-"
            feed("file", rel, mode, _file_sha256(full))
        elif full.is_dir():
            feed("dir", rel)
    key = digest.hexdigest()
    labels = {LABEL_KEY: KIND_TASK_IMAGE, TASK_LABEL: task.name, KEY_LABEL: key}
    return BuildPlan(
        tag=f"{image_name(task)}:{key[:16]}",
        key=key,
        dockerfile=dockerfile,
        files=files,
        buildargs=buildargs,
        labels=labels,
        base_images=named,
    )


def ensure_image(
    task: Task,
    *,
    client: docker.DockerClient | None = None,
    base_image: str | None = None,
    rebuild: bool = False,
    on_log: Callable[[str], None] | None = None,
    uid: int = DEFAULT_UID,
    gid: int = DEFAULT_GID,
) -> ImageRef:
    """The task's image, built only when no image of its content tag exists.

    ``rebuild`` builds again without the layer cache (e.g. to fetch dependencies anew)
    and removes the image it replaces when nothing uses it any more. Raises `InfraError`
    when the engine is unreachable or the build fails (with the tail of the build log).
    """
    import docker.errors

    from lmr_author.runtime.engine import get_client

    client = client or get_client()
    plan = plan_build(task, client=client, base_image=base_image, uid=uid, gid=gid)
    with _lock_for(plan.tag):
        previous = _image_id_or_empty(client, plan.tag)
        if previous and not rebuild:
            return _ref(task, plan.tag, client.images.get(previous).attrs, built=False)
        image_id = _build(task, plan, client, on_log, nocache=rebuild)
        try:
            attrs = client.images.get(image_id or plan.tag).attrs
        except docker.errors.DockerException as error:
            raise InfraError(f"the image just built is not there: {error}") from None
        if previous and previous != attrs.get("Id"):
            # Untagged by the rebuild; a container still running from it keeps it alive.
            with contextlib.suppress(docker.errors.APIError):
                client.api.remove_image(previous)
        return _ref(task, plan.tag, attrs, built=True)


def _build(
    task: Task,
    plan: BuildPlan,
    client: docker.DockerClient,
    on_log: Callable[[str], None] | None,
    *,
    nocache: bool = False,
) -> str:
    import docker.errors
    import requests
    from docker.utils.build import create_archive

    tail: list[str] = []

    def log(text: str) -> None:
        for line in text.splitlines():
            tail.append(line)
            del tail[:-40]
            if on_log is not None:
                on_log(line)

    image_id = ""
    try:
        with tempfile.TemporaryFile() as context:
            create_archive(
                str(task.path),
                files=plan.files,
                fileobj=context,
                extra_files=[("Dockerfile", plan.dockerfile)],
            )
            stream: Iterable[dict[str, Any]] = client.api.build(
                fileobj=context,
                custom_context=True,
                tag=plan.tag,
                buildargs=plan.buildargs,
                labels=plan.labels,
                rm=True,
                forcerm=True,
                nocache=nocache,
                pull=False,
                decode=True,
            )
            for chunk in stream:
                if "stream" in chunk:
                    log(str(chunk["stream"]))
                if "aux" in chunk and isinstance(chunk["aux"], dict):
                    image_id = str(chunk["aux"].get("ID", image_id))
                if "error" in chunk:
                    log(str(chunk["error"]))
                    raise InfraError(
                        f"the image of task {task.name} did not build: "
                        f"{str(chunk['error']).strip()}\n" + "\n".join(tail[-15:]),
                        file=task.dockerfile_path,
                        hint="Fix the Dockerfile (or pass a base image the engine has).",
                    )
    except (docker.errors.DockerException, requests.RequestException, OSError) as error:
        raise InfraError(
            f"the image of task {task.name} did not build: {error}\n" + "\n".join(tail[-15:]),
            file=task.dockerfile_path,
            hint="Check that the Docker engine runs and the Dockerfile builds.",
        ) from None
    if not image_id:
        image_id = client.images.get(plan.tag).id or ""
    return image_id


def image_by_id(client: docker.DockerClient, task: Task, image_id: str) -> ImageRef | None:
    """The engine's image ``image_id`` if it is one of ``task``'s images, else None.

    A cluster node runs what the submitter keyed: the image with that very id (loaded
    from a saved archive or pulled by digest), found without recomputing the build's
    content tag, which depends on the node's own base images.
    """
    import docker.errors

    try:
        attrs = client.images.get(image_id).attrs
    except docker.errors.ImageNotFound:
        return None
    except docker.errors.APIError as error:
        raise InfraError(f"the Docker engine failed: {error}") from None
    labels = (attrs.get("Config") or {}).get("Labels") or {}
    if labels.get(LABEL_KEY) != KIND_TASK_IMAGE or labels.get(TASK_LABEL) != task.name:
        return None  # some other image: never run a task's tests in it
    tags = [str(tag) for tag in attrs.get("RepoTags") or []]
    tag = next((t for t in tags if t.startswith(image_name(task) + ":")), image_id)
    return _ref(task, tag, attrs, built=False)


def _ref(task: Task, tag: str, attrs: dict[str, Any], *, built: bool) -> ImageRef:
    config = attrs.get("Config") or {}
    workdir = str(config.get("WorkingDir") or "")
    repo = task.repo_folder_name
    if not workdir:
        workdir = f"/workspace/{repo}"
    elif Path(workdir).name != repo:
        workdir = f"{workdir.rstrip('/')}/{repo}"
    return ImageRef(
        tag=tag,
        image_id=str(attrs.get("Id", "")),
        built=built,
        workdir=workdir,
        user=str(config.get("User") or ""),
    )


def _image_id_or_empty(client: docker.DockerClient, name: str) -> str:
    import docker.errors

    try:
        return client.images.get(name).id or ""
    except docker.errors.ImageNotFound:
        return ""
    except docker.errors.APIError as error:
        raise InfraError(f"the Docker engine failed: {error}") from None


def _file_sha256(path: Path) -> bytes:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.digest()


def _lock_for(tag: str) -> threading.Lock:
    with _BUILD_LOCKS_GUARD:
        return _BUILD_LOCKS.setdefault(tag, threading.Lock())
