"""Help text that fits 80 columns: the formatter and the folding of group descriptions.

``eval``, ``judge`` and ``review`` write their descriptions pre-folded (the raw formatter
keeps paragraphs and examples as written); options are folded to the same width.
"""

from __future__ import annotations

import argparse
import shutil
import textwrap
from typing import Any

#: The widest help line, whatever the terminal (a wider one reads it too).
HELP_WIDTH = 80


class HelpIn80Columns(argparse.RawDescriptionHelpFormatter):
    """Help that fits 80 columns however wide the terminal, narrower when it is."""

    def __init__(self, prog: str) -> None:
        width = min(HELP_WIDTH, shutil.get_terminal_size().columns) - 2
        super().__init__(prog, width=width)


def group_text(text: str) -> str:
    """An argument group's description folded to 80 columns (argparse indents it by two
    and, with the raw formatter, folds nothing)."""
    return textwrap.fill(text, HELP_WIDTH - 2)


def add_command(
    subparsers: argparse._SubParsersAction[Any],
    name: str,
    *,
    summary: str,
    description: str,
    epilog: str,
) -> argparse.ArgumentParser:
    """A command's parser whose help fits 80 columns: ``summary`` is its line in
    ``lmr-author --help``, ``description`` and ``epilog`` are written pre-folded."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        name,
        help=summary,
        description=description,
        epilog=epilog,
        formatter_class=HelpIn80Columns,
    )
    return parser
