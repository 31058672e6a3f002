"""A well-formed task has no findings; the published info.json files load."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

FORMATS = Path(__file__).resolve().parents[2].parent / "shared" / "reference" / "formats"


def test_valid_task_has_no_findings(make_task: Callable[..., Path], findings: Callable) -> None:
    assert findings(make_task()) == []


@pytest.mark.parametrize("name", ["info-01-DPO.json", "info-05-SimPO.json"])
def test_published_info_files_load(
    name: str, make_task: Callable[..., Path], findings: Callable
) -> None:
    source = FORMATS / name
    if not source.exists():
        pytest.skip("the shared reference formats are not beside the repository")
    task = make_task(name.removeprefix("info-").removesuffix(".json"))
    shutil.copy(source, task / "info.json")
    rules = {f.rule for f in findings(task)}
    assert "schema" not in rules and "json-syntax" not in rules
    # The scaffold lacks the published repository folder, which the validator says.
    assert "missing-path" in rules
