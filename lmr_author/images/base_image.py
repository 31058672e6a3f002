"""The base image the task Dockerfiles build FROM: pulled when the engine can, else
built offline.

``FROM python:3.11-slim`` needs that image in the engine. Pulling it takes seconds
where the engine reaches a registry (Docker Hub or the mirror it is configured with),
so that is tried first, with a time-out on the engine's silence: a registry out of
reach is given up on instead of waited for. Where the pull fails, an equivalent image
is built from Debian packages alone: ``debootstrap`` a minimal Debian root file system
with Python 3 (and NumPy, which the sample tasks use), then import it into the engine
under the name the task Dockerfiles expect (needs root and debootstrap, and minutes).
"""

from __future__ import annotations

import os
import queue
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from lmr_author.runtime import KIND_BASE, LABEL_KEY
from lmr_author.runtime.engine import get_client
from lmr_author.util.errors import UserError

if TYPE_CHECKING:
    import docker

DEFAULT_TAG = "python:3.11-slim"
DEFAULT_SUITE = "bookworm"
DEFAULT_PACKAGES = (
    "python3",
    "python3-numpy",
    "python3-pip",
    "python-is-python3",
    "ca-certificates",
)
#: Seconds the engine may stay silent during a pull before we give up on the registry.
#: A pull that makes progress reports it every second or so; one that cannot reach its
#: registry says nothing until the engine's own connection time-out, often much later.
DEFAULT_PULL_TIMEOUT = 30.0

#: How the image came to be there: kept as it was, pulled, or built offline.
How = Literal["present", "pulled", "built"]
#: Builds the image offline and imports it into the engine under the tag.
OfflineBuild = Callable[["docker.DockerClient", str], None]


@dataclass(frozen=True)
class BaseImageResult:
    tag: str
    image_id: str
    how: How
    pull_error: str | None = None  # why the pull failed, when it was tried and failed


def apt_mirror(root: Path = Path("/")) -> str | None:
    """The Debian mirror this machine's apt uses, so debootstrap goes where apt goes.

    None on a system that is not Debian (Ubuntu's archive has no Debian suites): then
    debootstrap uses its own default Debian mirror.
    """
    try:
        release = (root / "etc/os-release").read_text()
    except OSError:
        return None
    if "ID=debian" not in release.splitlines():
        return None
    for source in (root / "etc/apt/sources.list.d/debian.sources", root / "etc/apt/sources.list"):
        try:
            lines = source.read_text().splitlines()
        except OSError:
            continue
        for line in lines:
            line = line.strip()
            if line.startswith("URIs:"):
                uris = [uri for uri in line.split(":", 1)[1].split() if "security" not in uri]
                if uris:
                    return uris[0]
            if line.startswith("deb ") and "security" not in line:
                parts = line.split()
                urls = [p for p in parts[1:] if "://" in p]
                if urls:
                    return urls[0]
    return None


def pull_base_image(tag: str, *, timeout: float = DEFAULT_PULL_TIMEOUT) -> str | None:
    """Pull ``tag`` into the engine: None when it is there now, else why it is not.

    ``timeout`` bounds each wait for the engine's next word (its answer, then each
    progress message), not the whole pull: a slow pull that progresses goes on. The SDK
    waits for a pull without any time-out, so the pull runs in a thread we stop waiting
    for; the engine ends that attempt by its own time-out (tens of seconds).
    """
    import docker.errors
    from docker.utils import parse_repository_tag

    client = get_client()
    repository, version = parse_repository_tag(tag)
    said: queue.Queue[tuple[str, object]] = queue.Queue()

    def relay() -> None:
        try:
            for event in client.api.pull(
                repository, tag=version or "latest", stream=True, decode=True
            ):
                said.put(("event", event))
            said.put(("done", None))
        except Exception as error:  # the engine refused, or the stream broke off
            said.put(("failed", error))

    threading.Thread(target=relay, name=f"pull {tag}", daemon=True).start()
    try:
        while True:
            try:
                kind, value = said.get(timeout=timeout)
            except queue.Empty:
                return f"no word from the engine for {timeout:g} s: its registry seems out of reach"
            if kind == "failed":
                return _said(value)
            if kind == "event" and isinstance(value, dict) and "error" in value:
                return str(value.get("error") or value)
            if kind == "done":
                client.images.get(tag)
                return None
    except docker.errors.DockerException as error:
        return _said(error)
    finally:
        client.close()  # its pool only: a connection the thread still reads stays open


@dataclass(frozen=True)
class Debootstrap:
    """The offline build: a minimal Debian with Python 3 and NumPy, imported under the
    tag (needs root and debootstrap)."""

    suite: str = DEFAULT_SUITE
    packages: tuple[str, ...] = DEFAULT_PACKAGES
    mirror: str | None = None

    def __call__(self, client: docker.DockerClient, tag: str) -> None:
        from docker.utils import parse_repository_tag

        if shutil.which("debootstrap") is None:
            raise UserError(
                "debootstrap is not installed",
                hint="Install it (apt-get install debootstrap), or make the image pullable.",
            )
        if os.geteuid() != 0:
            raise UserError(
                "building a base image with debootstrap needs root", hint="Run as root."
            )
        mirror = self.mirror or apt_mirror()
        with tempfile.TemporaryDirectory(prefix="lmr-author-rootfs-") as tmp:
            rootfs = Path(tmp) / "rootfs"
            command = [
                "debootstrap",
                "--variant=minbase",
                "--include=" + ",".join(self.packages),
                self.suite,
                str(rootfs),
            ]
            if mirror:
                command.append(mirror)
            completed = subprocess.run(command, capture_output=True, text=True, check=False)
            if completed.returncode != 0:
                tail = "\n".join((completed.stdout + completed.stderr).splitlines()[-15:])
                raise UserError(f"debootstrap failed:\n{tail}", hint="Check the Debian mirror.")
            # pip inside the image must be allowed to install packages (PEP 668 marker).
            for marker in rootfs.glob("usr/lib/python3*/EXTERNALLY-MANAGED"):
                marker.unlink()
            for cache in ("var/cache/apt/archives", "var/lib/apt/lists"):
                shutil.rmtree(rootfs / cache, ignore_errors=True)
            tarball = Path(tmp) / "rootfs.tar"
            subprocess.run(["tar", "-C", str(rootfs), "-cf", str(tarball), "."], check=True)
            repository, version = parse_repository_tag(tag)
            client.api.import_image_from_file(
                str(tarball),
                repository=repository,
                tag=version or "latest",
                changes=[
                    "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                    "ENV LANG=C.UTF-8",
                    "ENV PIP_BREAK_SYSTEM_PACKAGES=1",
                    f"LABEL {LABEL_KEY}={KIND_BASE}",
                    'CMD ["python3"]',
                ],
            )


def ensure_base_image(
    tag: str = DEFAULT_TAG,
    *,
    pull_timeout: float | None = DEFAULT_PULL_TIMEOUT,
    build_offline: OfflineBuild | None = None,
    force: bool = False,
    on_step: Callable[[str], None] | None = None,
) -> BaseImageResult:
    """Make sure the engine has ``tag``: keep it, else pull it, else build it offline.

    ``pull_timeout`` None skips the pull; ``build_offline`` None means no offline build
    (a failed pull is then the error). ``force`` gets the image again even if the tag
    exists. ``on_step`` hears what is being done before each slow step.
    """
    import docker.errors

    say = on_step or (lambda _text: None)
    client = get_client()
    try:
        if not force:
            try:
                return BaseImageResult(tag, client.images.get(tag).id or "", "present")
            except docker.errors.ImageNotFound:
                pass
        pull_error: str | None = None
        if pull_timeout is not None:
            say(f"pulling {tag} (giving up after {pull_timeout:g} s without progress)")
            pull_error = pull_base_image(tag, timeout=pull_timeout)
            if pull_error is None:
                return _finished(client, tag, "pulled", None)
            if build_offline is None:
                raise UserError(
                    f"could not pull {tag}: {pull_error}",
                    hint="Check the engine's registry settings (or proxy), or build the "
                    "image offline: lmr-author sandbox base-image --no-pull (needs root and "
                    "debootstrap).",
                )
            say(f"could not pull {tag} ({pull_error}); building it offline with debootstrap")
        elif build_offline is None:
            raise UserError("neither pulling nor building was allowed", hint="Allow one.")
        else:
            say(f"building {tag} offline with debootstrap")
        try:
            build_offline(client, tag)
        except UserError as error:
            if pull_error is None:
                raise
            raise UserError(
                f"could not pull {tag} ({pull_error}), nor build it offline: {error.message}",
                hint=error.hint,
            ) from None
        return _finished(client, tag, "built", pull_error)
    finally:
        client.close()


def _finished(
    client: docker.DockerClient, tag: str, how: How, pull_error: str | None
) -> BaseImageResult:
    from lmr_author.images.certificates import trusting_base  # behind a TLS-inspecting proxy

    image = client.images.get(tag)
    trusting_base(client, tag)  # the CA layer task builds use (docs/tls-proxy.md)
    return BaseImageResult(tag, image.id or "", how, pull_error)


def _said(error: object) -> str:
    """The engine's own words for a failed request, without the SDK's wrapping."""
    explanation = getattr(error, "explanation", None)
    return str(explanation or error)
