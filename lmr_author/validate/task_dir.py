"""The one-call entry point for other front ends (the new-task TUI, scripts)."""

from __future__ import annotations

from pathlib import Path

from lmr_author.validate.findings import Finding
from lmr_author.validate.static import validate_task


def validate_task_dir(task_dir: str | Path, *, schema_only: bool = False) -> list[Finding]:
    """The static findings of one task folder, as `lmr-author validate` reports them."""
    return validate_task(task_dir, schema_only=schema_only).findings
