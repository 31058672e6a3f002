"""Step 7 of new-task: check a draft before it is written.

`info_from_spec` gives the info.json the draft would produce, so the schema can be
checked live as fields change; `check_draft` builds the task into a scratch folder and
runs the static validation rules on it, exactly as `lmr-author validate` would.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lmr_author.authoring.build import build_task, implementations_from_spec
from lmr_author.authoring.spec import TaskSpec
from lmr_author.schema import SchemaIssue, schema_issues
from lmr_author.task import Task


def info_from_spec(spec: TaskSpec) -> dict[str, Any]:
    """The info.json the draft would produce (before building it)."""
    repo_folder = spec.repo_folder_name or Path(spec.repo_path or ".").name
    implementations = [
        impl.to_info() for impl in implementations_from_spec(spec, Path(), Path(repo_folder))
    ]
    info: dict[str, Any] = {
        "instance_id": spec.instance_id,
        "paper_name": spec.paper_name,
        "folder_name": spec.folder_name,
        "paper_url": spec.paper_url,
        "year": spec.year,
        "repo_url": spec.repo_url,
        "repo_commit": spec.repo_commit,
        "repo_folder_name": repo_folder,
        "implementations": implementations,
    }
    return {key: value for key, value in info.items() if value not in (None, "")} | {
        "implementations": implementations
    }


def schema_check(spec: TaskSpec) -> list[SchemaIssue]:
    """Schema problems of the info.json the draft would produce."""
    return schema_issues(info_from_spec(spec))


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
