"""``--runtime``: which container engine the commands that run containers talk to."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

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


def add_runtime_option(parser: argparse.ArgumentParser | Any) -> None:
    """Add ``--runtime {docker,podman}`` to a command (or an argument group)."""
    parser.add_argument(
        "--runtime",
        choices=RUNTIMES,
        default="docker",
        action=_RuntimeAction,
        help="container engine: docker (DOCKER_HOST) or podman (its Docker-compatible "
        "API at CONTAINER_HOST, default unix:///run/podman/podman.sock) "
        "(default: %(default)s)",
    )
