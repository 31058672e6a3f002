"""``--runtime`` and ``--sif-cache``: which container engine runs the tests."""

from __future__ import annotations

import argparse
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lmr_author.runtime.engine import RUNTIMES, use_runtime
from lmr_author.sandbox.apptainer import SIF_CACHE_ENV, gpus_choosable
from lmr_author.util.errors import UserError


class _RuntimeAction(argparse.Action):
    """Selects the runtime as the option is parsed, so every client made later uses it."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        use_runtime(str(values))
        setattr(namespace, self.dest, values)


class _SifCacheAction(argparse.Action):
    """Names the SIF cache in the environment, which Slurm jobs inherit (sbatch --export)."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        os.environ[SIF_CACHE_ENV] = os.path.abspath(str(values))
        setattr(namespace, self.dest, values)


def add_runtime_option(parser: argparse.ArgumentParser | Any) -> None:
    """Add ``--runtime {docker,podman,apptainer}`` and ``--sif-cache`` to a command."""
    parser.add_argument(
        "--runtime",
        choices=RUNTIMES,
        default="docker",
        action=_RuntimeAction,
        help="container engine: docker (DOCKER_HOST), podman (its Docker-compatible "
        "API at CONTAINER_HOST, default unix:///run/podman/podman.sock) or apptainer "
        "(images built by docker, run from SIF files) (default: %(default)s)",
    )
    parser.add_argument(
        "--sif-cache",
        metavar="DIR",
        action=_SifCacheAction,
        help=f"with --runtime apptainer: where SIF files of task images are kept, one per "
        f"image id (a folder the nodes share; also {SIF_CACHE_ENV}; default: the user "
        "cache folder's sif/)",
    )


def check_runtime_args(args: argparse.Namespace) -> None:
    """Runtime options that cannot work together, refused before anything runs."""
    runtime = getattr(args, "runtime", None)
    if getattr(args, "sif_cache", None) is not None and runtime != "apptainer":
        raise UserError("--sif-cache is for --runtime apptainer", hint="Add --runtime apptainer.")
    gpus = getattr(args, "gpus", None)
    if runtime == "apptainer" and gpus is not None and not gpus_choosable(str(gpus)):
        raise UserError(
            f"--gpus {gpus}: Apptainer cannot pick a number of GPUs",
            hint="Use --gpus all (all the host's, or those Slurm gave the job) or "
            "--gpus device=0,1.",
        )
    if runtime == "apptainer" and getattr(args, "images", None) is not None:
        raise UserError(
            "--images is not needed with --runtime apptainer: its nodes run the SIF files "
            "of --sif-cache",
            hint="Leave out --images, and give a --sif-cache folder the nodes share.",
        )
    sif_cache = getattr(args, "sif_cache", None)
    if sif_cache is not None:
        _check_writable_folder(Path(sif_cache), "--sif-cache")


def _check_writable_folder(folder: Path, option: str) -> None:
    """``folder`` exists (or is made) and takes a file, or a `UserError` naming ``option``."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".lmr-check-"):
            pass
    except OSError as error:
        raise UserError(
            f"{option} {folder}: cannot write there ({error.strerror or error})",
            hint=f"Give {option} a folder you may write to (on a cluster, one the nodes share).",
        ) from None
