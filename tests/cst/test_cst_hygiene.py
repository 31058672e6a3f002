"""The engine is headless, and the CLI does not pay for libcst until a command runs."""

from __future__ import annotations

import subprocess
import sys

CHECK = """
import sys
import lmr_author.cli
lmr_author.cli.build_parser()
assert "libcst" not in sys.modules, "building the parser imported libcst"
import lmr_author.cst, lmr_author.cst.mask, lmr_author.cst.splice, lmr_author.cst.extract
import lmr_author.cst.cache, lmr_author.commands.cst
assert "libcst" in sys.modules
bad = sorted(name for name in sys.modules if name.split(".")[0] == "textual")
assert not bad, bad
"""


def test_engine_never_imports_textual_and_help_skips_libcst() -> None:
    result = subprocess.run(
        [sys.executable, "-c", CHECK], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
