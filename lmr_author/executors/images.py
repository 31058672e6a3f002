"""A node whose engine lacks a run's image loads it from ``--images DIR`` first.

``DIR`` is what ``lmr-author sandbox save`` wrote (`lmr_author.images.archives`): one
``<id>.tar`` per image, saved by id. Only the archive of the run's own image is loaded
(not the whole folder: a node runs a few tasks of many), and the loaded id is checked
against the one the run was keyed with, so a wrong or tampered archive is an
infrastructure error, never a run in another image.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from lmr_author.images.archives import archive_name
from lmr_author.runtime.infra_error import InfraError

if TYPE_CHECKING:
    import docker


def ensure_loaded(client: docker.DockerClient, image_id: str, folder: Path) -> bool:
    """Load ``image_id`` from ``folder`` unless the engine has it; whether it loaded."""
    import docker.errors

    try:
        client.images.get(image_id)
        return False
    except docker.errors.ImageNotFound:
        pass
    except docker.errors.DockerException as error:
        raise InfraError(f"the container engine on this node failed: {error}") from None
    path = folder / archive_name(image_id)
    hint = f"Save the images there first: 'lmr-author sandbox save BENCHMARK --to {folder}'."
    from lmr_author.runtime.engine import bulk_client

    try:
        with path.open("rb") as archive, bulk_client() as loader:  # GBs take minutes
            images = loader.images.load(archive)
    except FileNotFoundError:
        raise InfraError(
            f"this node's engine lacks image {image_id[:19]} and {folder} has no {path.name}",
            hint=hint,
        ) from None
    except (OSError, docker.errors.DockerException) as error:
        raise InfraError(f"could not load {path}: {error}") from None
    ids = {str(image.id) for image in images}
    if image_id not in ids:
        raise InfraError(
            f"{path} holds image {', '.join(sorted(ids)) or 'none'}, not the one its name says",
            hint=hint,
        )
    return True
