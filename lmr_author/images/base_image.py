"""Build a Python base image offline, for engines that cannot pull one.

Where the image registry is out of reach, ``FROM python:3.11-slim`` cannot be pulled.
This builds an equivalent image from Debian packages alone: ``debootstrap`` a minimal
Debian root file system with Python 3 (and NumPy, which the sample tasks use), then
import it into the engine under the name the task Dockerfiles expect.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from lmr_author.runtime import LABEL_KEY
from lmr_author.util.errors import UserError

DEFAULT_TAG = "python:3.11-slim"
DEFAULT_SUITE = "bookworm"
DEFAULT_PACKAGES = (
    "python3",
    "python3-numpy",
    "python3-pip",
    "python-is-python3",
    "ca-certificates",
)


@dataclass(frozen=True)
class BaseImageResult:
    tag: str
    image_id: str
    built: bool  # False when the tag already existed and was kept


def apt_mirror() -> str | None:
    """The Debian mirror this machine's apt uses, so debootstrap goes where apt goes."""
    candidates = [Path("/etc/apt/sources.list.d/debian.sources"), Path("/etc/apt/sources.list")]
    for source in candidates:
        try:
            lines = source.read_text().splitlines()
        except OSError:
            continue
        for line in lines:
            line = line.strip()
            if line.startswith("URIs:"):
                uris = line.split(":", 1)[1].split()
                if uris:
                    return uris[0]
            if line.startswith("deb ") and "security" not in line:
                parts = line.split()
                urls = [p for p in parts[1:] if "://" in p]
                if urls:
                    return urls[0]
    return None


def build_base_image(
    tag: str = DEFAULT_TAG,
    *,
    suite: str = DEFAULT_SUITE,
    packages: tuple[str, ...] = DEFAULT_PACKAGES,
    mirror: str | None = None,
    force: bool = False,
) -> BaseImageResult:
    """Build (or keep) the offline base image ``tag``; needs root and debootstrap."""
    import docker
    import docker.errors

    try:
        client = docker.from_env()
        client.ping()
    except docker.errors.DockerException as error:
        raise UserError(
            f"cannot reach the Docker engine ({error})",
            hint="Start dockerd (or Docker Desktop) and check DOCKER_HOST.",
        ) from None
    if not force:
        try:
            existing = client.images.get(tag)
            return BaseImageResult(tag=tag, image_id=existing.id or "", built=False)
        except docker.errors.ImageNotFound:
            pass
    if shutil.which("debootstrap") is None:
        raise UserError(
            "debootstrap is not installed",
            hint="Install it (apt-get install debootstrap) or pull a base image instead.",
        )
    if os.geteuid() != 0:
        raise UserError("building a base image with debootstrap needs root", hint="Run as root.")
    mirror = mirror or apt_mirror()
    with tempfile.TemporaryDirectory(prefix="lmr-author-rootfs-") as tmp:
        rootfs = Path(tmp) / "rootfs"
        command = [
            "debootstrap",
            "--variant=minbase",
            "--include=" + ",".join(packages),
            suite,
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
        repository, _, version = tag.partition(":")
        client.api.import_image_from_file(
            str(tarball),
            repository=repository,
            tag=version or "latest",
            changes=[
                "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                "ENV LANG=C.UTF-8",
                "ENV PIP_BREAK_SYSTEM_PACKAGES=1",
                f"LABEL {LABEL_KEY}=base",
                'CMD ["python3"]',
            ],
        )
    image = client.images.get(tag)
    from lmr_author.images.certificates import trusting_base  # behind a TLS-inspecting proxy

    trusting_base(client, tag)  # the CA layer task builds use (docs/tls-proxy.md)
    return BaseImageResult(tag=tag, image_id=image.id or "", built=True)
