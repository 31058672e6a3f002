"""Human labels in the published LMR-Bench shape: read them in, write them out.

A published label file is a JSON list of records ``{annotator, agent_type, model_name,
paper_index, function_index (from 0), human_judge_result (1..3), comment}``
(schemas/labels.schema.json). Exports add three optional keys the published files lack
(``task``, ``created_at``, ``candidate_sha256``) so that export then import gives back the
same labels; ``bare=True`` leaves them out. A bad record is refused with the file and the
record index named, and nothing of that file is imported.

One published file uses 0..2 instead of 1..3: reading it with ``shift=1`` adds 1 to every
``human_judge_result``; without it, a file whose labels are all in 0..2 is refused with a
hint naming the option.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from lmr_author.domain.identity import Identity, from_zero_based, split_system, to_zero_based
from lmr_author.labels.model import InvalidLabelError, Label, now_iso
from lmr_author.util.atomic import atomic_write_text
from lmr_author.util.errors import UserError
from lmr_author.util.json_input import load_json

#: Keys of the published record, in the published order.
PUBLISHED_KEYS = (
    "annotator",
    "agent_type",
    "model_name",
    "paper_index",
    "function_index",
    "human_judge_result",
    "comment",
)
#: Optional keys our exports add so that nothing is lost in a round trip.
EXTRA_KEYS = ("task", "created_at", "candidate_sha256")
_REQUIRED = PUBLISHED_KEYS[:-1]
#: Indices beyond this are typing errors (the benchmark has 28 tasks); it also keeps
#: values inside SQLite's 64-bit integers.
MAX_INDEX = 999_999
#: Label scales a file may use, and what to add to reach 1..3.
SCALES = {"1-3": 0, "0-2": 1}
_NOTHING_IMPORTED = "no label of any file was imported (all are checked before any is written)"


def task_names(benchmark: Path) -> dict[int, str]:
    """Paper index -> task folder name for the task folders of ``benchmark``."""
    from lmr_author.domain.identity import paper_index
    from lmr_author.domain.task import find_task_dirs

    names: dict[int, str] = {}
    for folder in find_task_dirs(benchmark):
        index = paper_index(folder.name)
        if index is not None:
            names[index] = folder.name
    return names


def read_label_file(
    path: Path,
    aliases: Identity | None = None,
    *,
    tasks: Mapping[int, str] | None = None,
    annotator: str | None = None,
    shift: int = 0,
) -> list[Label]:
    """The labels of a published-shape JSON file.

    Args:
        tasks: paper index -> task folder name (see `task_names`); without it a label's
            task is its paper index as text (``"7"``), which still matches ``07-Name``.
        annotator: fills in records without an annotator (never overrides one).
        shift: added to every ``human_judge_result`` (1 for a file on a 0..2 scale).
    """
    aliases = aliases or Identity()
    data = read_label_records(path)
    labels: list[Label] = []
    for i, record in enumerate(data):
        try:
            labels.append(
                label_from_record(
                    record,
                    aliases,
                    tasks=tasks,
                    annotator=annotator,
                    file=path,
                    index=i,
                    shift=shift,
                )
            )
        except UserError as error:
            if shift == 0 and raw_result(record) == 0 and _on_zero_to_two(data):
                raise UserError(
                    f"{error.message}: the labels of this file are on a 0..2 scale "
                    "(0 = logically incorrect, 2 = completely correct), not 1..3",
                    file=path,
                    where=error.where,
                    hint=f"Read it with --shift 1 (or --scale 0-2); {_NOTHING_IMPORTED}.",
                ) from None
            raise
    return labels


def read_label_records(path: Path) -> list[Any]:
    """The raw records of a published-shape label file (a list, or ``{"labels": [...]}``)."""
    data = load_json(
        path,
        what="label file",
        hint=f"A label file is a JSON list of records in the published shape; {_NOTHING_IMPORTED}.",
    )
    if isinstance(data, dict) and isinstance(data.get("labels"), list):
        data = data["labels"]
    if not isinstance(data, list):
        raise UserError(
            "must hold a JSON list of label records",
            file=path,
            hint="See schemas/labels.schema.json for the record shape.",
        )
    return data


def read_label_file_scaled(
    path: Path,
    aliases: Identity | None = None,
    *,
    tasks: Mapping[int, str] | None = None,
    annotator: str | None = None,
    shift: int | None = None,
) -> tuple[list[Label], str | None]:
    """`read_label_file` for reading (agreement, report): without a ``shift``, a file
    whose labels are certainly on the 0..2 scale (`zero_to_two`) is read with +1, and the
    note says so; ``labels import`` stays explicit."""
    note = None
    if shift is None:
        shift = 0
        if zero_to_two(path):
            shift = 1
            note = f"{path}: labels on the 0..2 scale (a 0 is among them); read with +1"
    labels = read_label_file(path, aliases, tasks=tasks, annotator=annotator, shift=shift)
    return labels, note


def raw_result(record: Any) -> Any:
    """The ``human_judge_result`` of a raw record as written (None when absent)."""
    return record.get("human_judge_result") if isinstance(record, dict) else None


def zero_to_two(path: Path) -> bool:
    """The file's labels are certainly on the 0..2 scale: whole numbers in 0..2, a 0 among
    them (0 is no label on 1..3). Read it with ``shift=1``."""
    records = read_label_records(path)
    return _on_zero_to_two(records) and any(raw_result(r) == 0 for r in records)


def _on_zero_to_two(records: list[Any]) -> bool:
    """Every label of the file is a whole number in 0..2."""
    values = {raw_result(record) for record in records}
    return all(isinstance(v, int) and not isinstance(v, bool) for v in values) and values <= {
        0,
        1,
        2,
    }


def label_from_record(
    record: Any,
    aliases: Identity,
    *,
    tasks: Mapping[int, str] | None = None,
    annotator: str | None = None,
    file: Path | None = None,
    index: int = 0,
    shift: int = 0,
) -> Label:
    """One published record -> a `Label`; a UserError names the file and record index."""

    def fail(message: str, key: str | None = None) -> UserError:
        where = f"record {index}" + (f", key '{key}'" if key else "")
        return UserError(
            message,
            file=file,
            where=where,
            hint=f"Fix or remove this record; {_NOTHING_IMPORTED}.",
        )

    if not isinstance(record, dict):
        raise fail(f"must be a JSON object, got {type(record).__name__}")
    if annotator and not record.get("annotator"):
        record = {**record, "annotator": annotator}
    missing = [key for key in _REQUIRED if key not in record]
    if missing:
        raise fail("is missing " + ", ".join(repr(key) for key in missing))
    for key in ("annotator", "agent_type"):
        if not isinstance(record[key], str) or not record[key].strip():
            raise fail(f"must be a non-empty string, got {record[key]!r}", key)
    if not isinstance(record["model_name"], str):
        raise fail(f"must be a string, got {record['model_name']!r}", "model_name")
    for key in ("paper_index", "function_index"):
        value = record[key]
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_INDEX:
            shown = repr(value) if len(repr(value)) < 40 else repr(value)[:37] + "..."
            raise fail(f"must be a whole number >= 0 (at most {MAX_INDEX}), got {shown}", key)
    result = record["human_judge_result"]
    if shift and isinstance(result, int) and not isinstance(result, bool):
        result += shift
    if isinstance(result, bool) or result not in (1, 2, 3):
        shifted = f" after --shift {shift}" if shift else ""
        raise fail(
            f"label must be 1, 2 or 3 (logically incorrect / logically correct with "
            f"implementation errors / completely correct), got {result!r}{shifted}",
            "human_judge_result",
        )
    for key in ("comment", *EXTRA_KEYS):
        value = record.get(key)
        if value is not None and not isinstance(value, str):
            raise fail(f"must be a string, got {value!r}", key)
    paper_index = int(record["paper_index"])
    # A task given by name is kept as written (exports round-trip); a bare paper index
    # is spelt as the benchmark's folder, or zero-padded (lmr_author.domain.identity).
    task = record.get("task") or aliases.canonical_task(str(paper_index), tasks)
    if aliases.paper_index(task) not in (None, paper_index):
        raise fail(f"task {task!r} does not have paper index {paper_index}", "task")
    try:
        return Label(
            annotator=record["annotator"].strip(),
            system=aliases.system(record["agent_type"], record["model_name"]),
            task=task,
            implementation=from_zero_based(int(record["function_index"])),
            label=int(result),
            comment=record.get("comment") or "",
            created_at=record.get("created_at") or now_iso(),
            candidate_sha256=record.get("candidate_sha256") or "",
        )
    except InvalidLabelError as error:
        raise fail(error.message) from error


def label_to_record(label: Label, aliases: Identity, *, bare: bool = False) -> dict[str, Any]:
    """A `Label` -> a published record (plus our extra keys unless ``bare``)."""
    agent_type, model_name = split_system(aliases.canonical_system(label.system))
    paper_index = aliases.paper_index(label.task)
    if paper_index is None:
        raise UserError(
            f"the label of {label.annotator} on task {label.task!r} cannot be exported: "
            "the published shape needs a paper index and the task name has no number "
            "before a dash",
            hint="Add the task to the [tasks] table of an aliases file (--aliases).",
        )
    record: dict[str, Any] = {
        "annotator": label.annotator,
        "agent_type": agent_type,
        "model_name": model_name,
        "paper_index": paper_index,
        "function_index": to_zero_based(label.implementation),
        "human_judge_result": label.label,
        "comment": label.comment,
    }
    if not bare:
        record["task"] = label.task
        record["created_at"] = label.created_at
        record["candidate_sha256"] = label.candidate_sha256
    return record


def write_label_file(
    path: Path, labels: Iterable[Label], aliases: Identity | None = None, *, bare: bool = False
) -> int:
    """Write ``labels`` as a published-shape JSON file, atomically; return how many."""
    records = labels_to_records(labels, aliases, bare=bare)
    atomic_write_text(path, dumps_records(records))
    return len(records)


def labels_to_records(
    labels: Iterable[Label], aliases: Identity | None = None, *, bare: bool = False
) -> list[dict[str, Any]]:
    aliases = aliases or Identity()
    return [label_to_record(label, aliases, bare=bare) for label in labels]


def dumps_records(records: list[dict[str, Any]]) -> str:
    """The JSON text of an export (4-space indent like the published files)."""
    return json.dumps(records, indent=4, ensure_ascii=False) + "\n"
