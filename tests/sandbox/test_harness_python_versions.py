"""The harness runs inside any task image: its scripts need nothing newer than Python 3.8.

Published task images bring their own Python (LMR-Bench's PyTorch images have 3.10);
the files copied into every test container must run there. vermin finds the features a
file needs; the runtime union in ``isinstance(x, A | B)`` (3.10) it does not, so an AST
check looks for that too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
import vermin

from lmr_author.sandbox import harness

SCRIPTS = ("supervise.py", "runtest.py", "crossing.py", "proxy.py", "candidate.py", "zygote.py")
HERE = Path(harness.__file__).resolve().parent


@pytest.mark.parametrize("name", SCRIPTS)
def test_the_harness_needs_no_newer_python_than_3_8(name: str) -> None:
    config = vermin.Config()
    config.add_backport("typing")
    source = (HERE / name).read_text()
    found = vermin.visit(source, config, path=str(HERE / name))
    needed = found.minimum_versions()[1]
    assert needed is not None and tuple(needed) <= (3, 8), (name, needed, found.output_text())


@pytest.mark.parametrize("name", SCRIPTS)
def test_no_runtime_unions_in_isinstance(name: str) -> None:
    tree = ast.parse((HERE / name).read_text())
    unions = [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in ("isinstance", "issubclass")
        and len(node.args) == 2
        and isinstance(node.args[1], ast.BinOp)
        and isinstance(node.args[1].op, ast.BitOr)
    ]
    assert unions == [], f"{name}: isinstance(x, A | B) needs Python 3.10, lines {unions}"
