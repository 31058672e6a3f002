"""The images a draft built, so that a task keeps one image.

Every build of a changed repository makes a new image (its tag is its content): the
environment image recording runs in, and the task image a verification proves. Which
of them this draft made is written down here (a small file per draft, keyed by its
working tree), and each new image of a kind removes the draft's older ones of that
kind; saving keeps only the saved task's current image. Only tags this draft recorded
are ever removed, never another task's or another user's that share a name.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Literal

from lmr_author.authoring.spec import TaskSpec
from lmr_author.util.atomic import atomic_write_json
from lmr_author.util.errors import UserError
from lmr_author.util.locations import cache_dir, private_dir

Kind = Literal["environment", "task"]


def working_tree(spec: TaskSpec) -> Path:
    """The draft's checked-out repository; `UserError` before step 1 made one."""
    if spec.repo_path and Path(spec.repo_path).is_dir():
        return Path(spec.repo_path)
    if spec.source and Path(spec.source).is_dir():
        return Path(spec.source)
    raise UserError(
        "the draft has no checked-out repository",
        hint="Check out the repository first (step 1).",
    )


def draft_key(spec: TaskSpec) -> str:
    """The draft's key: its working tree (the same across renames of the task)."""
    return hashlib.sha256(str(working_tree(spec).resolve()).encode()).hexdigest()[:12]


def _record_file(spec: TaskSpec) -> Path:
    return private_dir(cache_dir("draft-images")) / f"{draft_key(spec)}.json"


def _read(path: Path) -> dict[str, list[str]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {str(k): [str(t) for t in v] for k, v in data.items() if isinstance(v, list)}


def built(spec: TaskSpec, kind: Kind, tag: str) -> None:
    """Record that the draft built ``tag``; remove its older images of this ``kind``."""
    with contextlib.suppress(UserError):  # housekeeping never fails a build
        path = _record_file(spec)
        record = _read(path)
        older = [t for t in record.get(kind, []) if t != tag]
        record[kind] = [tag]
        atomic_write_json(path, record)
        _remove(older)


def saved(spec: TaskSpec, keep: str | None) -> None:
    """The task is saved: every image the draft built goes, but ``keep`` (its own)."""
    with contextlib.suppress(UserError):
        path = _record_file(spec)
        record = _read(path)
        _remove(t for tags in record.values() for t in tags if t != keep)
        path.unlink(missing_ok=True)


def _remove(tags: Iterable[str]) -> None:
    from lmr_author.sandbox.housekeeping import remove_tags

    tags = list(dict.fromkeys(tags))
    if tags:
        remove_tags(tags)  # InfraError is a UserError: the callers suppress it
