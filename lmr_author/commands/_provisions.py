"""``--gpus`` and ``--hf-cache``: what test containers get besides their image."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from lmr_author.sandbox.provisions import hub_folder, parse_gpus
from lmr_author.util.errors import UserError


def gpu_request(text: str) -> str:
    """``--gpus`` as argparse reads it: a bad request is a usage error, not a traceback."""
    try:
        return parse_gpus(text)
    except UserError as error:
        raise argparse.ArgumentTypeError(error.render()) from None


def add_provision_options(parser: argparse.ArgumentParser | Any) -> None:
    """Add ``--gpus`` and ``--hf-cache`` to a command that runs tests (or a group)."""
    parser.add_argument(
        "--gpus",
        type=gpu_request,
        metavar="SPEC",
        help="give test containers GPUs: all, a count or device=0,1 (as 'docker run --gpus'); "
        "part of the run key",
    )
    parser.add_argument(
        "--hf-cache",
        type=Path,
        metavar="DIR",
        help="Hugging Face cache holding the models tasks load (its hub folder is mounted "
        "read-only, offline); part of the run key",
    )


def hub_of(args: argparse.Namespace) -> str | None:
    """The checked hub folder of ``--hf-cache`` (a clear error when it cannot be mounted)."""
    given: Path | None = args.hf_cache
    return None if given is None else str(hub_folder(given))
