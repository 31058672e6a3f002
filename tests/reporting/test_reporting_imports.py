"""The new library modules are headless: no Textual, no Rich, and heavy imports stay lazy."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

MODULES = [
    "lmr_author.reporting.pass_at_k",
    "lmr_author.reporting.published_results",
    "lmr_author.reporting.repo_metrics",
    "lmr_author.reporting.regression",
    "lmr_author.generation.prompt",
]


@pytest.mark.parametrize("module", MODULES)
def test_module_is_headless_and_light(module: str) -> None:
    code = (
        "import importlib, json, sys\n"
        f"importlib.import_module({module!r})\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in\n"
        "    ('textual', 'rich', 'statsmodels', 'jinja2', 'numpy'))))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=ROOT,  # `python -c` puts the working folder first on sys.path
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == []
