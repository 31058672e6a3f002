"""``--runtime`` and ``--sif-cache``: which container engine runs the tests."""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from typing import Any

from lmr_author.sandbox.apptainer import SIF_CACHE_ENV
from lmr_author.sandbox.engine import RUNTIMES, use_runtime


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
