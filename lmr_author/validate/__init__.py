"""Static and dynamic checks of tasks and benchmarks, each a small named rule.

The public API is re-exported here lazily, so that importing
``lmr_author.validate.findings`` (as the sandbox and the TUI do) stays cheap.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "Finding": "lmr_author.validate.findings",
    "Rule": "lmr_author.validate.rules",
    "all_rules": "lmr_author.validate.rules",
    "TaskReport": "lmr_author.validate.static",
    "discover_tasks": "lmr_author.validate.static",
    "select_rules": "lmr_author.validate.static",
    "validate_task": "lmr_author.validate.static",
    "validate_paths": "lmr_author.validate.static",
    "validate_task_dir": "lmr_author.validate.task_dir",
    "Change": "lmr_author.validate.fixes",
    "apply_fixes": "lmr_author.validate.fixes",
    "to_json": "lmr_author.validate.report",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'lmr_author.validate' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
