"""The options that configure the LLM judge, defined once for ``judge`` and ``eval --judge``.

`add_judge_options` adds them to a parser (``judge --model``; ``eval`` adds them with
the prefix ``judge-``: ``eval --judge-model``), and `judge_config` turns them into the
judge's settings. Their destinations are ``judge_<name>`` whatever the prefix, so both
commands are read the same way.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from lmr_author.commands._endpoint_options import add_endpoint_options, endpoint_settings
from lmr_author.commands._types import non_negative_float

if TYPE_CHECKING:
    from lmr_author.judge.config import JudgeConfig


def add_judge_options(parser: Any, prefix: str = "") -> None:
    """Add the judge's options to ``parser`` (or an argument group), each flag
    ``--<prefix><name>``."""

    def option(name: str, *, flag: str | None = None, **kwargs: Any) -> None:
        dest = "judge_" + name.replace("-", "_")
        parser.add_argument(flag or f"--{prefix}{name}", dest=dest, **kwargs)

    add_endpoint_options(parser, prefix=prefix, dest_prefix="judge_")
    option("model", metavar="NAME", help="judge model (default: OPENAI_MODEL, else gpt-4o)")
    option(
        "temperature",
        type=non_negative_float,
        default=0.0,
        metavar="T",
        help="sampling temperature (default: 0; reasoning models such as o4-mini need 1)",
    )
    option(
        "scope",
        flag="--judge-scope",  # the name, the same for both commands
        choices=("function", "file"),
        default="function",
        help="show the judge the goal function with its class context (default) or whole "
        "goal files",
    )
    option(
        "no-structured",
        action="store_true",
        help="never ask for structured (json_schema) output (by default it is asked for, "
        "and given up when the server refuses it with HTTP 400)",
    )


def judge_config(args: argparse.Namespace, *, offline: bool = False) -> JudgeConfig:
    """The judge's settings from `add_judge_options`' flags and the environment.

    Raises `JudgeNotConfigured` when no endpoint or key is given anywhere, unless
    ``offline`` (a dry run, which needs no key).
    """
    import os

    from lmr_author.judge.config import config_from_env
    from lmr_author.llm.endpoint import NO_KEY

    return config_from_env(
        api_key=(os.environ.get(args.judge_api_key_env) or NO_KEY) if offline else None,
        **endpoint_settings(args, dest_prefix="judge_"),
        model=args.judge_model,
        temperature=args.judge_temperature,
        scope=args.judge_scope,
        structured=not args.judge_no_structured,
    )
