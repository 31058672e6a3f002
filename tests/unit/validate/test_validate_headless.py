"""The validator is a library: it returns data, and only `commands/` draws with rich."""

from __future__ import annotations

import json
import subprocess
import sys

MODULES = [
    "lmr_author.validate.report",
    "lmr_author.validate.static",
    "lmr_author.validate.proof",
    "lmr_author.validate.registry",
    "lmr_author.authoring.check",
    "lmr_author.authoring.fixtures",
]


def test_the_validator_and_authoring_never_import_rich_or_textual() -> None:
    code = (
        "import importlib, json, sys\n"
        f"for name in {MODULES!r}:\n"
        "    importlib.import_module(name)\n"
        "from lmr_author.validate.registry import all_rules\n"
        "all_rules()\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in"
        " ('rich', 'textual'))))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == []
