"""Step 8 of new-task: check a draft before it is written.

`draft_info` is the info.json the draft would produce, made exactly as the builder
makes it (`task_from_spec`, then `Task.to_info`), so the live schema check and the
written file agree. `live_check` adds what Save will require of the identity (a year
and an instance_id, filled by `fill_identity` when they can be), by running that very
function on a copy: the live check never passes a draft that Save refuses. Building a
draft for the static rules and the Docker proof is `lmr_author.authoring.save`'s job.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from lmr_author.authoring.spec import TaskSpec
from lmr_author.authoring.task_layout import task_from_spec
from lmr_author.domain.hardware import HARDWARE_KEY, HardwareError, parse_hardware
from lmr_author.util.errors import UserError
from lmr_author.util.schema import SchemaIssue, schema_issues

#: Fields the save fills when empty (`fill_identity`): null is not a problem in itself.
IDENTITY_FIELDS = ("instance_id", "year")


def draft_info(spec: TaskSpec) -> dict[str, Any]:
    """The info.json the draft would produce: the builder's own `Task.to_info`."""
    return task_from_spec(spec, Path(spec.folder_name or ".")).to_info()


def schema_check(spec: TaskSpec) -> list[SchemaIssue]:
    """Schema problems of the info.json the draft would produce."""
    return schema_issues(draft_info(spec))


def identity_issues(spec: TaskSpec) -> list[SchemaIssue]:
    """Why Save could not fill the instance_id or the year, each with what to do.

    Reads the paper's PDF metadata when the year is empty (as the save does).
    """
    from lmr_author.authoring.save import fill_identity

    trial = copy.deepcopy(spec)
    issues: list[SchemaIssue] = []
    for _ in IDENTITY_FIELDS:
        try:
            fill_identity(trial)
        except UserError as error:
            # fill_identity stops at the first field it cannot fill; set it and look on.
            name = "instance_id" if trial.instance_id is None else "year"
            issues.append(SchemaIssue(f"$.{name}", str(error)))
            setattr(trial, name, 0)
        else:
            break
    return issues


def live_check(spec: TaskSpec) -> list[SchemaIssue]:
    """Everything Save would refuse in info.json: the schema and the identity."""
    fillable = {f"$.{name}" for name in IDENTITY_FIELDS}
    issues = [
        issue
        for issue in schema_check(spec)
        if not (issue.path in fillable and "null" in issue.message)
    ]
    if not any(issue.path.startswith(f"$.{HARDWARE_KEY}") for issue in issues):
        issues += hardware_issues(spec)  # what only the loader refuses, said once
    return issues + identity_issues(spec)


def hardware_issues(spec: TaskSpec) -> list[SchemaIssue]:
    """What the loader would refuse in the draft's ``hardware`` that the schema allows
    (memory without a GPU count): a saved task must load."""
    try:
        parse_hardware(spec.hardware_info())
    except HardwareError as error:
        return [SchemaIssue(error.where or f"$.{HARDWARE_KEY}", error.message)]
    return []
