"""Safe mechanical repairs (``lmr-author validate --fix``): info.json, and copies of the goal.

In the repository folder, copies of a goal function the solver could read are repaired
where that is mechanical (`lmr_author.leaks.remedy`): bytecode, build and backup copies
deleted, a copy in a Python file masked like the goal, every other byte kept.

In info.json, only repairs that cannot change what a task means: the published alias key renamed,
a category spelled differently from a canonical one, folder_name set to the folder's
name, a digit-string instance_id written as the number; and, after ``--run`` showed the
golden code needs a GPU that info.json does not declare, ``"hardware": {"gpus": 1}``
(never a memory size: nothing shows it). The file is edited as parsed JSON, keeping
every other key and the key order, and written atomically.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lmr_author.domain.categories import match_category
from lmr_author.domain.hardware import HARDWARE_KEY
from lmr_author.domain.task import INFO_FILE, RETRIEVAL_ALIAS, RETRIEVAL_KEY
from lmr_author.util.atomic import atomic_write_json
from lmr_author.util.errors import UserError
from lmr_author.validate.rules_info import alias_fixable, number_strings
from lmr_author.validate.rules_run import RULE_UNDECLARED_GPU
from lmr_author.validate.static import TaskReport


@dataclass(frozen=True)
class Change:
    """One repair made to info.json."""

    rule: str
    where: str
    description: str

    def to_json(self) -> dict[str, str]:
        return {"rule": self.rule, "where": self.where, "description": self.description}


def plan_fixes(task_dir: Path, data: dict[str, Any]) -> tuple[dict[str, Any], list[Change]]:
    """The repaired copy of ``data`` and the changes made (``data`` is not modified)."""
    fixed: dict[str, Any] = json.loads(json.dumps(data))
    changes: list[Change] = []
    name = task_dir.name
    folder_name = fixed.get("folder_name")
    if isinstance(folder_name, str) and folder_name and folder_name != name:
        fixed["folder_name"] = name
        changes.append(
            Change("folder-name", "$.folder_name", f"folder_name '{folder_name}' -> '{name}'")
        )
    if "folder_name" not in fixed:
        fixed["folder_name"] = name
        changes.append(Change("folder-name", "$", f"folder_name set to '{name}'"))
    for path, value in number_strings(fixed):
        _set_path(fixed, path, int(value))
        changes.append(Change("number-string", path, f"'{value}' -> {int(value)}"))
    entries = fixed.get("implementations")
    if isinstance(entries, list):
        for position, entry in enumerate(entries):
            if isinstance(entry, dict):
                entries[position] = _fix_implementation(entry, position, changes)
    return fixed, changes


def _fix_implementation(
    entry: dict[str, Any], position: int, changes: list[Change]
) -> dict[str, Any]:
    prefix = f"$.implementations[{position}]"
    category = entry.get("category")
    if isinstance(category, str):
        match = match_category(category)
        if match.fixable and match.category is not None:
            entry["category"] = match.category
            changes.append(
                Change(
                    "unknown-category",
                    f"{prefix}.category",
                    f"category '{category}' -> '{match.category}'",
                )
            )
    if not alias_fixable(entry):
        return entry
    if RETRIEVAL_KEY in entry:
        del entry[RETRIEVAL_ALIAS]
        changes.append(
            Change(
                "alias-key",
                f"{prefix}.{RETRIEVAL_ALIAS}",
                f"removed '{RETRIEVAL_ALIAS}' (same as '{RETRIEVAL_KEY}')",
            )
        )
        return entry
    renamed = {(RETRIEVAL_KEY if key == RETRIEVAL_ALIAS else key): v for key, v in entry.items()}
    changes.append(
        Change(
            "alias-key",
            f"{prefix}.{RETRIEVAL_ALIAS}",
            f"renamed '{RETRIEVAL_ALIAS}' to '{RETRIEVAL_KEY}'",
        )
    )
    return renamed


def apply_fixes(task_dir: str | Path) -> list[Change]:
    """Repair the task's info.json in place (atomically), then the copies of its goal
    functions in its repository folder; return what changed.

    Does nothing when info.json is missing or not a JSON object: there is nothing safe
    to repair, and validation reports why.
    """
    folder = Path(task_dir)
    changes = _fix_info(folder)
    return changes + apply_leak_fixes(folder) if changes is not None else []


def apply_leak_fixes(task_dir: str | Path) -> list[Change]:
    """Delete bytecode, build and backup copies of goal functions and mask copies in
    Python files (`lmr_author.leaks.remedy`); ``where`` of each change is the file."""
    from lmr_author.domain.task import TaskLoadError, load_task
    from lmr_author.leaks.remedy import remedy
    from lmr_author.leaks.task_copies import task_copies
    from lmr_author.validate.rules_leaks import RULE_LEAK

    try:
        task = load_task(Path(task_dir))
    except (TaskLoadError, UserError, OSError):
        return []
    prefix = task.repo_folder_name + "/"
    keep = {prefix + impl.goal_file for impl in task.implementations}
    repairs = remedy(task.path, task_copies(task), keep=keep)
    return [Change(RULE_LEAK, repair.file, repair.describe()) for repair in repairs]


def _fix_info(folder: Path) -> list[Change] | None:
    info = folder / INFO_FILE
    try:
        data = json.loads(info.read_bytes().decode("utf-8-sig"))
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(data, dict):
        return None
    fixed, changes = plan_fixes(folder.absolute(), data)
    if changes:
        atomic_write_json(info, fixed)
    return changes


def apply_run_fixes(report: TaskReport) -> list[Change]:
    """Repair what ``validate --run`` proved (the GPU the golden code needs) and drop the
    findings repaired from ``report``; return what changed.

    Only on the evidence of an ``undeclared-gpu`` finding, which only the golden run makes.
    """
    hints = [f for f in report.findings if f.rule == RULE_UNDECLARED_GPU]
    if not hints:
        return []
    info = report.path / INFO_FILE
    try:
        data = json.loads(info.read_bytes().decode("utf-8-sig"))
    except (OSError, ValueError, RecursionError):
        return []
    if not isinstance(data, dict):
        return []
    declared = data.get(HARDWARE_KEY)
    if isinstance(declared, dict) and declared.get("gpus", 0) != 0:
        return []  # declared since the run: the author's word stands
    data[HARDWARE_KEY] = {"gpus": 1}
    atomic_write_json(info, data)
    report.findings = [f for f in report.findings if f.rule != RULE_UNDECLARED_GPU]
    return [
        Change(
            RULE_UNDECLARED_GPU,
            f"$.{HARDWARE_KEY}",
            f'added "{HARDWARE_KEY}": {{"gpus": 1}} (the golden code needs a GPU)',
        )
    ]


def _set_path(document: dict[str, Any], path: str, value: Any) -> None:
    """Set ``$.key`` or ``$.implementations[k].key`` (the paths `number_strings` gives)."""
    parts = path.removeprefix("$.").split(".")
    target: Any = document
    for part in parts[:-1]:
        key, _, position = part.partition("[")
        target = target[key][int(position.rstrip("]"))] if position else target[key]
    target[parts[-1]] = value
