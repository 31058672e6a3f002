"""Task images as files: saved once, loaded by other engines under the same id.

For clusters whose nodes run engines of their own (issue 22): an image built on one
machine is saved to a shared folder as ``<id>.tar`` (``docker save``, which keeps the
image id), and a node's engine loads it instead of building again, so that its runs are
keyed with the very image the submitter keyed them with. Files are written atomically
(a half-written archive never has its final name) and a load is checked against the
file's name: an archive that yields another id is refused.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from lmr_author.runtime.infra_error import InfraError

if TYPE_CHECKING:
    import docker

SUFFIX = ".tar"


def archive_name(image_id: str) -> str:
    """``sha256:ab…`` -> ``sha256-ab….tar``."""
    return image_id.replace(":", "-") + SUFFIX


def _image_id(path: Path) -> str:
    return path.name.removesuffix(SUFFIX).replace("-", ":", 1)


def save_image(image_id: str, folder: Path) -> tuple[Path, bool]:
    """The archive of ``image_id`` (of the selected engine) in ``folder`` and whether
    this call wrote it."""
    import docker.errors

    from lmr_author.runtime.engine import bulk_client

    folder.mkdir(parents=True, exist_ok=True)
    target = folder / archive_name(image_id)
    if target.is_file():
        return target, False
    fd, scratch = tempfile.mkstemp(prefix=".saving-", suffix=SUFFIX, dir=folder)
    try:
        with os.fdopen(fd, "wb") as out, bulk_client() as client:
            for chunk in client.images.get(image_id).save(named=True):
                out.write(chunk)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(scratch, 0o644)  # mkstemp's 0600 would hide it from the nodes' users
        os.replace(scratch, target)
    except docker.errors.DockerException as error:
        os.unlink(scratch)
        raise InfraError(f"could not save image {image_id[:19]}: {error}") from None
    except BaseException:
        os.unlink(scratch)
        raise
    return target, True


@dataclass(frozen=True)
class Loaded:
    """What `load_images` did: ids loaded now, and ids the engine had already."""

    loaded: list[str]
    present: list[str]


def load_images(folder: Path) -> Loaded:
    """Load every ``<id>.tar`` of ``folder`` the selected engine lacks; check each id."""
    from lmr_author.runtime.engine import bulk_client

    with bulk_client() as client:
        return _load_missing(client, folder)


def _load_missing(client: docker.DockerClient, folder: Path) -> Loaded:
    import docker.errors

    loaded: list[str] = []
    present: list[str] = []
    for path in sorted(folder.glob("sha256-*" + SUFFIX)):
        wanted = _image_id(path)
        try:
            client.images.get(wanted)
            present.append(wanted)
            continue
        except docker.errors.ImageNotFound:
            pass
        try:
            with path.open("rb") as archive:
                images = client.images.load(archive)
        except (OSError, docker.errors.DockerException) as error:
            raise InfraError(f"could not load {path}: {error}") from None
        ids = {str(image.id) for image in images}
        if wanted not in ids:
            raise InfraError(
                f"{path} holds image {', '.join(sorted(ids)) or 'none'}, not the one its name says",
                hint="Delete the file and save the image again with 'lmr-author sandbox save'.",
            )
        loaded.append(wanted)
    return Loaded(loaded, present)
