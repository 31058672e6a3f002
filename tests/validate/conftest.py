"""Fixtures of the validator tests: `make_task` builds a valid task to break one thing."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.validate.samples import FileContent, Finding, MakeTask, build_task, findings_of


@pytest.fixture
def make_task(tmp_path: Path) -> MakeTask:
    """Build tasks under tmp_path (see `build_task`); ``parent`` picks another folder."""

    def build(
        name: str = "01-DPO",
        *,
        info: Callable[[dict[str, Any]], None] | None = None,
        files: dict[str, FileContent] | None = None,
        raw_info: str | bytes | None = None,
        parent: Path | None = None,
    ) -> Path:
        return build_task(parent or tmp_path, name, info=info, files=files, raw_info=raw_info)

    return build


@pytest.fixture
def findings() -> Callable[..., list[Finding]]:
    """``findings(task, rule=None, **options)``: validate and filter by rule id."""
    return findings_of
