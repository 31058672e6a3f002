"""A finding: one problem a validation rule found in a task."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

Severity = Literal["error", "warning"]


@dataclass(frozen=True)
class Finding:
    """What a rule found, where, and what to do about it.

    ``file`` is relative to the task folder ("" when the finding is about the folder);
    ``where`` is a JSON path (``$.implementations[0].category``), ``line 12``,
    ``lines 3-7`` or ``line 4, column 9``, or "".
    """

    rule: str  # stable kebab-case id, e.g. "missing-path"
    severity: Severity
    message: str
    file: str = ""
    where: str = ""
    hint: str = ""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)
