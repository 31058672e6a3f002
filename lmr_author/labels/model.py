"""The human label: one annotator's three-way verdict on one item (system × task × implementation).

Kept separate from the store so the review TUI, import/export and the agreement analysis
share one definition, and so an invalid label (e.g. a 4) is refused the moment it is made.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime

from lmr_author.domain.item_key import ItemKey as ItemKey  # the one item key, re-exported
from lmr_author.domain.three_way import ThreeWayLabel
from lmr_author.util.errors import UserError


class InvalidLabelError(UserError):
    """A label that cannot be stored: value outside 1..3, empty annotator, bad index."""


def now_iso() -> str:
    """The current time as ISO 8601 UTC with a ``Z`` suffix, to the millisecond."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass(frozen=True)
class Label:
    """One human label. ``candidate_sha256`` is the hash of the candidate file it judged."""

    annotator: str
    system: str
    task: str
    implementation: int
    label: int
    comment: str = ""
    created_at: str = field(default_factory=now_iso)
    candidate_sha256: str = ""

    def __post_init__(self) -> None:
        problem = label_problem(self)
        if problem:
            raise InvalidLabelError(problem)

    @property
    def item(self) -> ItemKey:
        return ItemKey(self.system, self.task, self.implementation)

    @property
    def name(self) -> str:
        """``LI`` / ``LC`` / ``CC``."""
        return ThreeWayLabel(self.label).short


def label_problem(label: Label) -> str | None:
    """Why ``label`` is not a valid label, or None when it is (checked at run time too)."""
    fields: dict[str, object] = dict(vars(label))
    for name in ("annotator", "system", "task"):
        value = fields[name]
        if not isinstance(value, str) or not value.strip():
            return f"the {name} name is empty or not text ({value!r})"
    implementation = fields["implementation"]
    if (
        isinstance(implementation, bool)
        or not isinstance(implementation, int)
        or implementation < 1
    ):
        return (
            f"implementation must be a 1-based integer (info.json 'index'), got {implementation!r}"
        )
    value = fields["label"]
    if not isinstance(value, int) or ThreeWayLabel.parse(value) is None:
        return (
            "label must be 1 (logically incorrect), 2 (logically correct with "
            f"implementation errors) or 3 (completely correct), got {value!r}"
        )
    for name in ("comment", "created_at", "candidate_sha256"):
        if not isinstance(fields[name], str):
            return f"{name} must be text, got {fields[name]!r}"
    return None
