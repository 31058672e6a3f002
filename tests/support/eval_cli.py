"""`lmr-author eval ... --json` as the Docker tests call it, and its parsed results."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lmr_author.cli import main


def eval_argv(bench: Path, systems: list[Path], out: Path, *extra: str) -> list[str]:
    """The command line: two workers, 60 s per test file, JSON on stdout."""
    argv = ["eval", str(bench), "--output", str(out), "--workers", "2", "--timeout", "60"]
    for system in systems:
        argv += ["-s", str(system)]
    return [*argv, *extra, "--json"]


def eval_json(
    bench: Path, systems: list[Path], out: Path, capsys: Any, *extra: str, status: int = 0
) -> dict[str, Any]:
    """``eval --json``'s results; ``status`` 1 when runs end in infrastructure errors."""
    code = main(eval_argv(bench, systems, out, *extra))
    captured = capsys.readouterr()
    if code != status:  # say which runs ended how, not only the progress lines
        try:
            runs = json.loads(captured.out)["runs"]
        except (ValueError, KeyError):
            runs = []
        odd = [(r["system"], r["task"], r["verdict"], r.get("reason", "")[:300]) for r in runs]
        raise AssertionError(f"exit {code}, not {status}: {captured.err[-2000:]}\n{odd}")
    data: dict[str, Any] = json.loads(captured.out)
    return data
