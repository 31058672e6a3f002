"""--fix: only safe mechanical repairs, written atomically, other keys kept."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from lmr_author.validate.fixes import apply_fixes

MakeTask = Callable[..., Path]


def impl0(data: dict) -> dict:
    return data["implementations"][0]


def test_fix_repairs_alias_category_and_folder_name(
    make_task: MakeTask, findings: Callable
) -> None:
    def edit(data: dict) -> None:
        data["folder_name"] = "1-DPO"
        data["custom_key"] = {"kept": True}
        entry = impl0(data)
        entry["category"] = "training objectives and optimization"
        entry["retrieval_content"] = ["trainers.py"]
        del entry["retrieval_context"]

    task = make_task("01-DPO", info=edit)
    changes = apply_fixes(task)
    assert sorted(c.rule for c in changes) == ["alias-key", "folder-name", "unknown-category"]
    data = json.loads((task / "info.json").read_text())
    assert data["folder_name"] == "01-DPO"
    assert data["custom_key"] == {"kept": True}
    entry = impl0(data)
    assert entry["category"] == "Training Objectives & Optimization"
    assert entry["retrieval_context"] == ["trainers.py"] and "retrieval_content" not in entry
    # The canonical key takes the position of the alias (here: the last key).
    assert list(entry)[-1] == "retrieval_context"
    assert findings(task) == []
    assert apply_fixes(task) == []  # idempotent


def test_fix_leaves_free_text_category_and_conflicts_alone(make_task: MakeTask) -> None:
    def edit(data: dict) -> None:
        impl0(data)["category"] = "loss function"
        impl0(data)["retrieval_content"] = ["other.py"]

    task = make_task(info=edit)
    before = (task / "info.json").read_bytes()
    assert apply_fixes(task) == []
    assert (task / "info.json").read_bytes() == before


def test_fix_drops_an_alias_equal_to_the_canonical_key(make_task: MakeTask) -> None:
    def edit(data: dict) -> None:
        impl0(data)["retrieval_content"] = []

    task = make_task(info=edit)
    [change] = apply_fixes(task)
    assert "removed" in change.description
    assert "retrieval_content" not in impl0(json.loads((task / "info.json").read_text()))


def test_fix_ignores_unparseable_info(make_task: MakeTask) -> None:
    task = make_task(raw_info="{oops")
    assert apply_fixes(task) == []
    assert (task / "info.json").read_text() == "{oops"


def test_fix_leaves_no_temporary_files(make_task: MakeTask) -> None:
    def edit(data: dict) -> None:
        data["folder_name"] = "x"

    task = make_task(info=edit)
    apply_fixes(task)
    assert sorted(p.name for p in task.iterdir()) == [
        "Dockerfile",
        "dpo-repo",
        "golden_files",
        "info.json",
    ]
