"""Draft life cycle: resume, save, finish, and what a new checkout resets.

Stale state was the bug class here: a finished task's draft came back on the next
`new-task`, and a second checkout kept the first one's repository folder name. These
functions are the one place that decides what a draft keeps.
"""

from __future__ import annotations

from pathlib import Path

from lmr_author.authoring.source import SourceCheckout, resolve_source
from lmr_author.authoring.spec import TaskSpec, draft_path, load_spec, save_spec
from lmr_author.util.errors import UserError


def resume_draft(name: str) -> TaskSpec:
    """The draft ``name`` to continue with: a fresh one when missing, unreadable or finished."""
    path = draft_path(name)
    if not path.exists():
        return TaskSpec()
    try:
        spec = load_spec(path)
    except UserError:
        return TaskSpec()
    if spec.finished:
        # Keep where the annotator saves tasks and the base image this machine builds
        # from; everything else starts over.
        return TaskSpec(benchmark_dir=spec.benchmark_dir, base_image=spec.base_image)
    return spec


def last_saved(name: str) -> Path | None:
    """The task the draft ``name`` became, when its last session saved one."""
    path = draft_path(name)
    if not path.exists():
        return None
    try:
        spec = load_spec(path)
    except UserError:
        return None
    if not spec.finished or not spec.folder_name or not spec.benchmark_dir:
        return None
    return Path(spec.benchmark_dir) / spec.folder_name


def save_draft(spec: TaskSpec, name: str) -> Path:
    path = draft_path(name)
    save_spec(spec, path)
    return path


def mark_finished(spec: TaskSpec, draft_file: Path | None) -> None:
    """Mark the draft saved as a task, so the next `new-task` starts a fresh one."""
    spec.finished = True
    if draft_file is not None:
        save_spec(spec, draft_file)


def apply_checkout(spec: TaskSpec, source: str, ref: str = "") -> SourceCheckout:
    """Check out ``source`` into the draft, dropping what belonged to another source.

    The repository folder name, URL and commit are recomputed from this checkout
    unless the annotator set them for this very source.
    """
    checkout = resolve_source(source, ref)
    same_source = spec.source == source and spec.ref == ref and spec.repo_path
    if not same_source:
        spec.repo_folder_name = ""
        spec.repo_url = ""
        spec.repo_commit = ""
        spec.requirements = ""
        spec.dockerfile = ""
    spec.source = source
    spec.ref = ref
    spec.repo_path = str(checkout.path)
    spec.repo_url = spec.repo_url or checkout.url
    spec.repo_commit = checkout.commit
    spec.repo_folder_name = spec.repo_folder(checkout.path)
    return checkout
