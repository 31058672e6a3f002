"""The options of an OpenAI-compatible endpoint, defined once for every command that asks
one: ``generate`` (the system under test) and the judge (``judge``, ``eval --judge``);
`endpoint_settings` reads them back as the keywords both configs take.

Each option is checked as it is parsed (a concurrency of 0, a negative time-out or a
non-number is refused with the usage line), whichever command takes it.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from lmr_author.commands._types import positive_float, positive_int


def add_endpoint_options(parser: Any, *, prefix: str = "", dest_prefix: str = "") -> None:
    """Add ``--<prefix>base-url``, ``api-key-env``, ``concurrency``, ``timeout``,
    ``max-attempts``, ``max-tokens`` and ``template`` to ``parser`` (or an argument
    group); their destinations are ``<dest_prefix><name>``."""

    def option(name: str, **kwargs: Any) -> None:
        dest = dest_prefix + name.replace("-", "_")
        parser.add_argument(f"--{prefix}{name}", dest=dest, **kwargs)

    option("base-url", metavar="URL", help="OpenAI-compatible endpoint (default: OPENAI_BASE_URL)")
    option(
        "api-key-env",
        default="OPENAI_API_KEY",
        metavar="NAME",
        help="environment variable holding the API key (default: %(default)s)",
    )
    option(
        "concurrency",
        type=positive_int,
        default=4,
        metavar="N",
        help="requests in flight (default: %(default)s)",
    )
    option(
        "timeout",
        type=positive_float,
        default=120.0,
        metavar="S",
        help="request time-out in seconds (default: %(default)g)",
    )
    option(
        "max-attempts",
        type=positive_int,
        default=5,
        metavar="N",
        help="tries per request on 429, 5xx and time-outs (default: %(default)s)",
    )
    option(
        "max-tokens", type=positive_int, metavar="N", help="cap on answer tokens (default: none)"
    )
    option("template", type=Path, metavar="FILE", help="own Jinja2 prompt template")


def endpoint_settings(args: argparse.Namespace, *, dest_prefix: str = "") -> dict[str, Any]:
    """What `add_endpoint_options` parsed, as the keywords of ``config_from_env``
    (generation's and the judge's alike)."""

    def value(name: str) -> Any:
        return getattr(args, dest_prefix + name)

    return {
        "base_url": value("base_url"),
        "api_key_env": value("api_key_env"),
        "concurrency": value("concurrency"),
        "timeout_s": value("timeout"),
        "max_attempts": value("max_attempts"),
        "max_tokens": value("max_tokens"),
        "template": value("template"),
    }
