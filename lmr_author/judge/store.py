"""Judgment files: ``OUTPUT/judgments/<system>/<task>/<index>.json``, one per run.

Each judgment is written atomically as soon as it is made, so an interrupted batch
keeps everything judged so far and the next run resumes where it stopped.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lmr_author.domain.three_way import ThreeWayLabel, short_name

# Re-exported: the judge's modules find judgment files here, the layout is eval_output's.
from lmr_author.eval_output import JUDGMENTS_DIR as JUDGMENTS_DIR
from lmr_author.eval_output import judgment_path as judgment_path
from lmr_author.judge.client import Usage
from lmr_author.util.atomic import atomic_write_json
from lmr_author.util.errors import UserError
from lmr_author.util.json_input import load_json

SCHEMA_VERSION = 1


@dataclass
class Judgment:
    """The judge's verdict on one run (shared judgment format, schema_version 1).

    ``error`` is set when the server never answered; such judgments are ``unparsed``
    and are asked again on the next run.
    """

    system: str
    task: str
    implementation: int
    candidate_sha256: str
    category: int | None
    label: str
    rationale: list[str]
    raw: str
    model: str
    endpoint: str
    scope: str
    prompt_sha256: str
    usage: Usage = field(default_factory=Usage)
    cached: bool = False
    error: str | None = None
    judged_at: str = ""
    #: The cache key of the request (endpoint, model, parameters, prompt): a judgment is
    #: up to date while a new judging run would send the very same request.
    request_key: str = ""

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "schema_version": SCHEMA_VERSION,
            "system": self.system,
            "task": self.task,
            "implementation": self.implementation,
            "candidate_sha256": self.candidate_sha256,
            "category": self.category,
            "label": self.label,
            "rationale": list(self.rationale),
            "raw": self.raw,
            "model": self.model,
            "endpoint": self.endpoint,
            "scope": self.scope,
            "prompt_sha256": self.prompt_sha256,
            "usage": self.usage.to_json(),
            "cached": self.cached,
            "judged_at": self.judged_at,
            "request_key": self.request_key,
        }
        if self.error is not None:
            data["error"] = self.error
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any], *, path: Path | None = None) -> Judgment:
        """Read a judgment; raise `UserError` naming the file and field when malformed."""

        def need(key: str, kind: type | tuple[type, ...]) -> Any:
            value = data.get(key)
            if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
                raise UserError(
                    f"'{key}' is missing or has the wrong type",
                    file=path,
                    where=f"$.{key}",
                    hint="Delete the file and run 'lmr-author judge' again to redo it.",
                )
            return value

        category = data.get("category")
        if category is not None and (
            not isinstance(category, int) or ThreeWayLabel.parse(category) is None
        ):
            raise UserError(
                f"'category' must be 1, 2, 3 or null, got {category!r}",
                file=path,
                where="$.category",
                hint="Fix it or delete the file to judge again.",
            )
        rationale = data.get("rationale") or []
        return cls(
            system=need("system", str),
            task=need("task", str),
            implementation=need("implementation", int),
            candidate_sha256=str(data.get("candidate_sha256", "")),
            category=category,
            label=short_name(category),
            rationale=[str(item) for item in rationale] if isinstance(rationale, list) else [],
            raw=str(data.get("raw", "")),
            model=str(data.get("model", "")),
            endpoint=str(data.get("endpoint", "")),
            scope=str(data.get("scope", "")),
            prompt_sha256=str(data.get("prompt_sha256", "")),
            usage=Usage.from_json(data.get("usage")),
            cached=bool(data.get("cached", False)),
            error=data.get("error") if isinstance(data.get("error"), str) else None,
            judged_at=str(data.get("judged_at", "")),
            request_key=str(data.get("request_key", "")),
        )


def save_judgment(output_dir: Path, judgment: Judgment) -> Path:
    """Write one judgment atomically; return its path."""
    path = judgment_path(output_dir, judgment.system, judgment.task, judgment.implementation)
    atomic_write_json(path, judgment.to_json(), indent=2)
    return path


def read_judgment(path: Path) -> Judgment:
    data = load_json(
        path,
        what="judgment",
        hint="Delete the file and run 'lmr-author judge' again to redo it.",
    )
    if not isinstance(data, dict):
        raise UserError("a judgment must be a JSON object", file=path, where="$")
    return Judgment.from_json(data, path=path)


def load_judgments(output_dir: Path) -> list[Judgment]:
    """Every judgment of an eval output folder, sorted by system, task, implementation."""
    folder = Path(output_dir) / JUDGMENTS_DIR
    if not folder.is_dir():
        return []
    judgments = [read_judgment(path) for path in folder.glob("*/*/*.json")]
    judgments.sort(key=lambda j: (j.system, j.task, j.implementation))
    return judgments
