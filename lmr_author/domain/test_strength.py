"""A task's test strength, stored with it: each implementation's mutation score and the
content it was measured on.

`lmr-author strengthen`, and the app's mutation test when its task is saved, measure how
many mutants of the golden goal function the tests kill (`lmr_author.mutation.score`)
and store the outcome in info.json, ``implementations[i].mutation_score``: the mutants
made, killed and not run, the survivors' keys, and a hash of the task's content. So
`validate` and `report` show it without running anything, and a score measured on other
content (a test changed, a fixture recorded again) is said to be stale, never shown as
the task's.

The hash leaves out what the score does not depend on: the score itself, the equivalent
marks (read when the score is shown, so marking a survivor equivalent moves it out of the
count without a new run), logs and bytecode.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lmr_author.domain.task import INFO_FILE, Implementation, Task

#: The info.json key of an implementation's stored mutation score.
MUTATION_SCORE_KEY = "mutation_score"
#: The info.json key of an implementation's equivalent mutants
#: (`lmr_author.mutation.equivalents` owns their meaning; the key is read here too).
EQUIVALENTS_KEY = "equivalent_mutants"
#: Below this share of mutants killed, tests are weak (validate warns, the app says so).
WEAK_SCORE = 0.5
_SKIPPED_PARTS = frozenset({".git", "__pycache__", ".mypy_cache", ".pytest_cache"})
_SKIPPED_SUFFIXES = (".pyc", ".log")


@dataclass(frozen=True)
class StoredScore:
    """What a mutation run found, as info.json keeps it."""

    mutants: int
    killed: int
    not_run: int
    #: The keys of the mutants the tests accepted (equivalent ones among them).
    survivors: tuple[str, ...]
    #: `content_hash` of the task when it was measured.
    content: str
    measured: str = ""
    base_image: str = ""

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "mutants": self.mutants,
            "killed": self.killed,
            "not_run": self.not_run,
            "survivors": list(self.survivors),
            "content": self.content,
        }
        if self.measured:
            data["measured"] = self.measured
        if self.base_image:
            data["base_image"] = self.base_image
        return data


@dataclass(frozen=True)
class Strength:
    """A stored score as it reads now: with today's equivalent marks, and whether the task
    still has the content it was measured on."""

    stored: StoredScore
    current: bool
    #: Survivors not marked equivalent, and the marked ones.
    survivors: tuple[str, ...]
    equivalent: int

    @property
    def counted(self) -> int:
        """The mutants that count: run, and not marked equivalent."""
        return self.stored.mutants - self.stored.not_run - self.equivalent

    @property
    def score(self) -> float:
        """The share of the counted mutants the tests kill (1.0 when none count)."""
        return self.stored.killed / self.counted if self.counted > 0 else 1.0

    @property
    def weak(self) -> bool:
        return self.counted > 0 and self.score < WEAK_SCORE

    def describe(self) -> str:
        """``29% (5/17 killed, 2 equivalent)``."""
        apart = f", {self.equivalent} equivalent" if self.equivalent else ""
        not_run = f", {self.stored.not_run} not run" if self.stored.not_run else ""
        return f"{self.score:.0%} ({self.stored.killed}/{self.counted} killed{apart}{not_run})"


def parse_stored(raw: Any) -> StoredScore | None:
    """The stored score of an info.json entry; None when absent or malformed (the schema
    reports a malformed one)."""
    if not isinstance(raw, dict):
        return None
    numbers = [raw.get(key) for key in ("mutants", "killed", "not_run")]
    if not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in numbers):
        return None
    survivors, content = raw.get("survivors"), raw.get("content")
    if not isinstance(survivors, list) or not all(isinstance(key, str) for key in survivors):
        return None
    if not isinstance(content, str) or not content:
        return None
    mutants, killed, not_run = (int(n) for n in numbers)  # type: ignore[arg-type]
    if killed + not_run + len(survivors) > mutants:
        return None
    measured, base = raw.get("measured", ""), raw.get("base_image", "")
    return StoredScore(
        mutants,
        killed,
        not_run,
        tuple(survivors),
        content,
        measured if isinstance(measured, str) else "",
        base if isinstance(base, str) else "",
    )


def equivalent_keys(impl: Implementation) -> set[str]:
    """The keys of the mutants ``impl`` marks equivalent (malformed entries skipped)."""
    raw = impl.extra.get(EQUIVALENTS_KEY)
    if not isinstance(raw, list):
        return set()
    return {
        str(item["mutant"])
        for item in raw
        if isinstance(item, dict) and isinstance(item.get("mutant"), str)
    }


def strength_of(task: Task, impl: Implementation, *, content: str | None = None) -> Strength | None:
    """``impl``'s stored score as it reads now (None: none stored). ``content`` is the
    task's `content_hash`, when the caller has it already (it reads every file)."""
    stored = parse_stored(impl.extra.get(MUTATION_SCORE_KEY))
    if stored is None:
        return None
    marked = equivalent_keys(impl)
    current = (content or content_hash(task.path)) == stored.content
    survivors = tuple(key for key in stored.survivors if key not in marked)
    return Strength(stored, current, survivors, len(stored.survivors) - len(survivors))


def content_hash(task_dir: Path) -> str:
    """A hash of what a mutation score depends on: every file of the task folder (names
    and bytes), with info.json read without its scores and equivalent marks."""
    digest = hashlib.sha256(b"task-content/1\0")
    root = Path(task_dir)
    for path in _files(root):
        relative = path.relative_to(root).as_posix()
        digest.update(relative.encode("utf-8", "surrogateescape") + b"\0")
        if path.is_symlink():
            digest.update(b"link\0" + os.fsencode(os.readlink(path)))
        elif relative == INFO_FILE:
            digest.update(hashlib.sha256(_info_content(path)).digest())
        else:
            digest.update(_file_digest(path))
    return digest.hexdigest()


def _files(root: Path) -> list[Path]:
    found: list[Path] = []
    for folder, names, files in os.walk(root):
        names[:] = sorted(name for name in names if name not in _SKIPPED_PARTS)
        base = Path(folder)
        # A symlink to a folder is content (its target's text), not a folder to walk.
        found += [base / name for name in names if (base / name).is_symlink()]
        found += [base / name for name in files if not name.endswith(_SKIPPED_SUFFIXES)]
    return sorted(found, key=lambda path: path.relative_to(root).as_posix())


def _file_digest(path: Path) -> bytes:
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    except OSError:
        return b"<unreadable>"
    return digest.digest()


def _info_content(path: Path) -> bytes:
    """info.json as the score depends on it: parsed, without scores and marks."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return b"<unreadable>"
    if isinstance(data, dict) and isinstance(data.get("implementations"), list):
        data["implementations"] = [
            {k: v for k, v in entry.items() if k not in (MUTATION_SCORE_KEY, EQUIVALENTS_KEY)}
            if isinstance(entry, dict)
            else entry
            for entry in data["implementations"]
        ]
    return json.dumps(data, sort_keys=True, ensure_ascii=False).encode("utf-8")
