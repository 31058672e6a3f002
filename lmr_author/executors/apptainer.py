"""Apptainer: the command line that runs one test in a task's image, and the SIF cache.

Not wired into ``eval`` yet (no Apptainer on the machines we test on): what exists is
the exact ``apptainer exec`` command a run would use, the refusal of settings that would
weaken a verdict, and a cache of SIF files keyed by the Docker image's id (a content
digest), built from ``docker-archive://`` (the image saved by id, so a tag moved in the
meantime cannot change what is converted). Flags are those of Apptainer 1.1+
(``apptainer exec --help``); the resource flags need cgroups v2 delegated to the user.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from lmr_author.errors import UserError
from lmr_author.sandbox.results import Limits

#: Docker image ids: a sha256 content digest.
_IMAGE_ID = re.compile(r"sha256:[0-9a-f]{64}")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class ApptainerRefused(UserError):
    """A setting that would let a candidate influence its own verdict."""


@dataclass(frozen=True)
class Bind:
    """A host path shown read-only inside the container (the harness, the candidate)."""

    source: str
    target: str


def exec_command(
    sif: Path,
    command: Sequence[str],
    *,
    workdir: str,
    limits: Limits,
    env: Mapping[str, str],
    binds: Sequence[Bind] = (),
    apptainer: str = "apptainer",
) -> list[str]:
    """``apptainer exec`` of ``command`` in ``sif``, as isolated as the Docker run.

    --containall: own PID and IPC namespaces, no host /home, /tmp or environment;
    --cleanenv and only ``env`` inside; --no-privs: no capabilities even for root;
    --net --network none: a loopback-only network namespace; --writable-tmpfs: the
    image is writable in memory only, nothing persists; --no-mount bind-paths: none of
    the administrator's default binds; every bind read-only.
    """
    if limits.network:
        raise ApptainerRefused(
            "Apptainer runs are network-less: a test with network could fetch answers",
            hint="Leave the network off for scored runs.",
        )
    if not PurePosixPath(workdir).is_absolute():
        raise ApptainerRefused(f"the working folder {workdir!r} must be absolute")
    argv = [apptainer, "exec", "--containall", "--no-home", "--cleanenv", "--no-privs"]
    argv += ["--net", "--network", "none", "--writable-tmpfs", "--no-mount", "bind-paths"]
    argv += ["--no-init", "--no-eval", "--pwd", workdir]
    memory = str(limits.memory_mb * 1024 * 1024)
    argv += ["--memory", memory, "--memory-swap", memory]  # equal: no swap, as in Docker
    argv += ["--cpus", f"{limits.cpus:g}", "--pids-limit", str(limits.pids)]
    for bind in binds:
        _check_bind(bind)
        argv += ["--bind", f"{bind.source}:{bind.target}:ro"]
    for name, value in sorted(env.items()):
        if not _ENV_NAME.fullmatch(name):
            raise ApptainerRefused(f"environment variable name {name!r} is not a plain name")
        argv += ["--env", f"{name}={value}"]
    return [*argv, str(sif), *command]


def _check_bind(bind: Bind) -> None:
    for path in (bind.source, bind.target):
        if not PurePosixPath(path).is_absolute() or "," in path or ":" in path:
            raise ApptainerRefused(
                f"bind {bind.source} -> {bind.target}: paths must be absolute, without ',' or ':'"
            )
    if PurePosixPath(bind.target) == PurePosixPath("/"):
        raise ApptainerRefused("a bind onto / would replace the image")


def build_command(sif: Path, archive: Path, *, apptainer: str = "apptainer") -> list[str]:
    """Convert a ``docker save`` archive into a SIF file."""
    return [apptainer, "build", str(sif), f"docker-archive://{archive}"]


Runner = Callable[[list[str]], None]


def _run(argv: list[str]) -> None:
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        said = " ".join((done.stderr or done.stdout).split())[-400:]
        raise UserError(f"{argv[0]} {argv[1]} failed (exit {done.returncode}): {said}")


class SifCache:
    """SIF files of task images, one per image id, built once and shared by the nodes.

    A SIF is named by the image's digest alone, so a rebuilt image (new id) gets a new
    file and a stale SIF can never stand for it. Builds write beside the target and
    rename into place, so a reader sees a whole file or none.
    """

    def __init__(self, folder: Path, *, runner: Runner = _run) -> None:
        self.folder = Path(folder)
        self.runner = runner

    def path_for(self, image_id: str) -> Path:
        if not _IMAGE_ID.fullmatch(image_id):
            raise UserError(
                f"{image_id!r} is not an image id (sha256:<64 hex digits>)",
                hint="Give the id of a built task image (lmr-author sandbox list).",
            )
        return self.folder / f"{image_id.removeprefix('sha256:')}.sif"

    def ensure(self, image_id: str, save_archive: Callable[[Path], None]) -> Path:
        """The SIF of ``image_id``; built from the archive ``save_archive`` writes if absent."""
        target = self.path_for(image_id)
        if target.is_file():
            return target
        self.folder.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(f".{target.stem}.{os.getpid()}.partial.sif")
        archive = target.with_name(f".{target.stem}.{os.getpid()}.tar")
        try:
            save_archive(archive)
            self.runner(build_command(partial, archive))
            if not partial.is_file():
                raise UserError(f"apptainer build wrote no {partial.name}")
            partial.replace(target)
        finally:
            archive.unlink(missing_ok=True)
            partial.unlink(missing_ok=True)
        return target
