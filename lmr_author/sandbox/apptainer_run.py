"""One test run under Apptainer: its SIF, its files staged for binding, and clean-up.

The Docker runner copies the harness and the candidate into the container; Apptainer
has no such call, so they are staged in a fresh private folder and bound read-only
(the harness at its usual place, the candidate over the masked goal file). The folders
the test writes (its logs, replay outputs) are fresh folders of that run, bound
writable and owned by the test user. The folder goes when the run ends, however it ends.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

from lmr_author.sandbox import harness, provisions
from lmr_author.sandbox.apptainer import (
    Bind,
    Finished,
    SifCache,
    default_cache_folder,
    exec_command,
    run_exec,
    wrapped,
)
from lmr_author.sandbox.errors import InfraError
from lmr_author.sandbox.images import ImageRef
from lmr_author.sandbox.results import Limits


def sif_of(image: ImageRef) -> Path:
    """The SIF of ``image``: from the cache, else converted from the engine's copy (saved
    by id). A node without an engine runs only images whose SIF is cached already."""
    import docker.errors
    import requests

    from lmr_author.sandbox.engine import bulk_client

    cache = SifCache(default_cache_folder())
    if (cached := cache.cached(image.image_id)) is not None:
        return cached

    def save(archive: Path) -> None:
        try:
            with bulk_client() as client, archive.open("wb") as handle:
                for chunk in client.images.get(image.image_id).save(named=False):
                    handle.write(chunk)
        except InfraError as error:  # no engine here
            raise InfraError(
                f"no SIF of image {image.image_id[:19]} in {cache.folder}, and no Docker "
                f"engine here to convert it ({error.message})",
                hint="Convert the images where Docker runs (eval --runtime apptainer "
                "converts them while preparing) into a --sif-cache folder the nodes share.",
            ) from None
        except (docker.errors.DockerException, requests.RequestException) as error:
            raise InfraError(f"could not save the task image {image.tag}: {error}") from None

    return cache.ensure(image.image_id, save)


def run_in_apptainer(
    *,
    image: ImageRef,
    command: Sequence[str],
    environment: Mapping[str, str],
    limits: Limits,
    files: Sequence[tuple[str, bytes]],
    writable: Sequence[str],
    run_as: tuple[int, int],
    nonce: str,
    stdout_cap: int,
    stderr_cap: int,
    timeout_s: float,
) -> Finished:
    """Run ``command`` (the supervisor's) in the task's SIF with ``files`` (container
    path, bytes) bound read-only and ``writable`` folders of its own."""
    sif = sif_of(image)
    as_root = os.geteuid() == 0
    stage = Path(tempfile.mkdtemp(prefix="lmr-apptainer-"))
    try:
        binds = [Bind(str(_stage_harness(stage)), str(harness.HARNESS_DIR))]
        for index, (target, data) in enumerate(files):
            source = stage / f"file-{index}"
            source.write_bytes(data)
            source.chmod(0o444)
            binds.append(Bind(str(source), target))
        for index, target in enumerate(writable):
            folder = stage / f"scratch-{index}"
            folder.mkdir(mode=0o700)
            if as_root:
                os.chown(folder, *run_as)
            binds.append(Bind(str(folder), target, writable=True))
        if limits.hf_cache is not None:
            binds.append(Bind(limits.hf_cache, provisions.HUB_MOUNT))
        argv = exec_command(
            sif,
            wrapped(command),
            workdir=image.workdir,
            limits=limits,
            env=environment,
            binds=binds,
            run_as=run_as if as_root else None,  # only root may choose the user
        )
        io = stage / "io"
        io.mkdir(mode=0o700)
        return run_exec(
            argv,
            nonce=nonce,
            timeout_s=timeout_s,
            scratch=io,
            stdout_cap=stdout_cap,
            stderr_cap=stderr_cap,
        )
    finally:
        shutil.rmtree(stage, ignore_errors=True)


def _stage_harness(stage: Path) -> Path:
    folder = stage / "harness"
    folder.mkdir()
    for name, data in harness.sources():
        path = folder / name
        path.write_bytes(data)
        path.chmod(0o444)
    folder.chmod(0o555)
    stage.chmod(0o711)  # the test user reaches nothing here but what is bound
    return folder
