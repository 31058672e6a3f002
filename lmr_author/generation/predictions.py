"""The predictions file `generate` writes: JSONL that `eval` reads as it is.

One JSON object per line with the keys `eval` needs (``task``, ``implementation``,
``system``, ``source``; schemas/predictions.schema.json) and what a reader of the run
wants besides: the sample index, the setting, the model, the token usage, the prompt's
estimated size and the cuts made to fit the budget, the request key and whether the
answer came from the cache. The file is rewritten atomically after every record, so an
interrupted run leaves whole lines only, and the next run keeps every line whose request
is unchanged (resume).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lmr_author.llm.usage import Usage
from lmr_author.util.atomic import atomic_write_text
from lmr_author.util.errors import UserError


@dataclass(frozen=True)
class PredictionRecord:
    """One line of the predictions file."""

    task: str
    implementation: int
    system: str
    source: str
    sample: int
    setting: str
    model: str
    request_key: str
    prompt_tokens_estimate: int
    usage: Usage = field(default_factory=Usage)
    truncations: tuple[str, ...] = ()
    cached: bool = False
    splice_error: str = ""

    @property
    def slot(self) -> tuple[str, str, int]:
        return (self.system, self.task, self.implementation)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "task": self.task,
            "implementation": self.implementation,
            "system": self.system,
            "source": self.source,
            "sample": self.sample,
            "setting": self.setting,
            "model": self.model,
            "usage": self.usage.to_json(),
            "prompt_tokens_estimate": self.prompt_tokens_estimate,
            "truncations": list(self.truncations),
            "cached": self.cached,
            "request_key": self.request_key,
        }
        if self.splice_error:
            data["splice_error"] = self.splice_error
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PredictionRecord:
        truncations = data.get("truncations") or []
        return cls(
            task=str(data["task"]),
            implementation=int(data["implementation"]),
            system=str(data["system"]),
            source=str(data["source"]),
            sample=int(data.get("sample", 1)),
            setting=str(data.get("setting", "")),
            model=str(data.get("model", "")),
            request_key=str(data.get("request_key", "")),
            prompt_tokens_estimate=int(data.get("prompt_tokens_estimate", 0)),
            usage=Usage.from_json(data.get("usage")),
            truncations=tuple(str(t) for t in truncations) if isinstance(truncations, list) else (),
            cached=bool(data.get("cached", False)),
            splice_error=str(data.get("splice_error", "")),
        )


def read_records(path: Path) -> list[PredictionRecord]:
    """The records of an existing predictions file (none when it does not exist).

    A line that is not a record `generate` wrote is a `UserError` naming the line: the
    file is refused rather than silently overwritten.
    """
    from lmr_author.util.json_input import iter_jsonl

    if not path.exists() and not path.is_symlink():
        return []
    hint = "Give a new --out file, or delete this one to start over."
    records: list[PredictionRecord] = []
    for number, data in iter_jsonl(path, what="predictions file", hint=hint):
        try:
            if not isinstance(data, dict):
                raise TypeError("not a JSON object")
            if not isinstance(data.get("source"), str):
                raise TypeError("'source' is not text")
            records.append(PredictionRecord.from_json(data))
        except (ValueError, KeyError, TypeError, OverflowError) as error:
            raise UserError(
                f"not a prediction written by 'lmr-author generate' ({error})",
                file=path,
                where=f"line {number}",
                hint=hint,
            ) from None
    return records


def write_records(path: Path, records: list[PredictionRecord]) -> None:
    """Rewrite the whole file atomically, in a stable order."""
    ordered = sorted(records, key=lambda r: (r.task, r.implementation, r.sample, r.system))
    atomic_write_text(
        path, "".join(json.dumps(r.to_json(), ensure_ascii=False) + "\n" for r in ordered)
    )
