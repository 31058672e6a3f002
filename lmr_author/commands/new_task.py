"""Placeholder: this command module is being written (see the open issues)."""

from __future__ import annotations

import argparse
from typing import Any


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add nothing yet."""
