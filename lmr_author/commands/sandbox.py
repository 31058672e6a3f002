"""`lmr-author sandbox`: manage lmr-author's Docker images and containers."""

from __future__ import annotations

import argparse
from typing import Any

from lmr_author.errors import EXIT_OK


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    parser = subparsers.add_parser(
        "sandbox",
        help="manage the Docker images and containers lmr-author makes",
        description="Manage the Docker images and containers lmr-author makes.",
    )
    actions = parser.add_subparsers(title="actions", metavar="ACTION")
    base = actions.add_parser(
        "base-image",
        help="build a Python base image offline (debootstrap) for engines that cannot pull",
        description=(
            "Build a Debian-based Python image with debootstrap and import it under TAG, so "
            "task Dockerfiles that say 'FROM python:3.11-slim' build without a registry. "
            "Keeps an existing image of that tag unless --force. Needs root."
        ),
    )
    base.add_argument("--tag", default="python:3.11-slim", help="image name (default: %(default)s)")
    base.add_argument("--suite", default="bookworm", help="Debian suite (default: %(default)s)")
    base.add_argument("--mirror", default=None, help="Debian mirror (default: the one apt uses)")
    base.add_argument("--force", action="store_true", help="rebuild even if the tag exists")
    base.set_defaults(handler=_base_image)
    parser.set_defaults(handler=lambda _args: parser.print_help() or 2)


def _base_image(args: argparse.Namespace) -> int:
    from lmr_author.sandbox.baseimage import build_base_image

    result = build_base_image(args.tag, suite=args.suite, mirror=args.mirror, force=args.force)
    state = "built" if result.built else "already present"
    print(f"base image {result.tag}: {state} ({result.image_id[:19]})")
    return EXIT_OK
