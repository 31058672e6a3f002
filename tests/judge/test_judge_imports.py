"""Import hygiene: the judge is headless and importing it stays cheap."""

from __future__ import annotations

import subprocess
import sys


def test_judge_imports_neither_textual_nor_openai() -> None:
    code = (
        "import sys, lmr_author.judge, lmr_author.commands.judge; "
        "print(sorted(m for m in ('textual', 'openai', 'lmr_author.tui') if m in sys.modules))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert result.stdout.strip() == "[]"
