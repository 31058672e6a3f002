"""Step 7 of new-task: check a draft before it is written.

`draft_info` is the info.json the draft would produce, made exactly as the builder
makes it (`task_from_spec`, then `Task.to_info`), so the live schema check and the
written file agree. Building a draft for the static rules and the Docker proof is
`lmr_author.authoring.save`'s job.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lmr_author.authoring.build import task_from_spec
from lmr_author.authoring.spec import TaskSpec
from lmr_author.schema import SchemaIssue, schema_issues


def draft_info(spec: TaskSpec) -> dict[str, Any]:
    """The info.json the draft would produce: the builder's own `Task.to_info`."""
    return task_from_spec(spec, Path(spec.folder_name or ".")).to_info()


def schema_check(spec: TaskSpec) -> list[SchemaIssue]:
    """Schema problems of the info.json the draft would produce."""
    return schema_issues(draft_info(spec))
