"""Step 7 of new-task: check a draft before it is written.

`draft_info` is the info.json the draft would produce, made exactly as the builder
makes it (`task_from_spec`, then `Task.to_info`), so the live schema check and the
written file agree; `build_scratch` builds the task into a scratch folder for the
static rules and the Docker proof.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lmr_author.authoring.build import build_task, task_from_spec
from lmr_author.authoring.spec import TaskSpec
from lmr_author.schema import SchemaIssue, schema_issues
from lmr_author.task import Task


def draft_info(spec: TaskSpec) -> dict[str, Any]:
    """The info.json the draft would produce: the builder's own `Task.to_info`."""
    return task_from_spec(spec, Path(spec.folder_name or ".")).to_info()


def schema_check(spec: TaskSpec) -> list[SchemaIssue]:
    """Schema problems of the info.json the draft would produce."""
    return schema_issues(draft_info(spec))


@dataclass
class DraftCheck:
    task: Task  # built in a scratch folder; valid until `cleanup`
    scratch: tempfile.TemporaryDirectory[str]

    def cleanup(self) -> None:
        self.scratch.cleanup()


def build_scratch(spec: TaskSpec) -> DraftCheck:
    """Build the draft into a scratch benchmark folder (for static and Docker checks)."""
    scratch = tempfile.TemporaryDirectory(prefix="lmr-author-check-")
    try:
        task = build_task(spec, Path(scratch.name))
    except BaseException:
        scratch.cleanup()
        raise
    return DraftCheck(task=task, scratch=scratch)
