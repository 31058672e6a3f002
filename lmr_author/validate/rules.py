"""The registry of validation rules: stable ids, default severities, one-line summaries.

A rule is a small function ``check(ctx) -> Iterable[Finding]`` registered with the
`rule` decorator. The registry is what ``lmr-author validate --list-rules`` prints and
what the runner walks, in registration order.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from lmr_author.validate.findings import Finding, Severity
from lmr_author.validate.severities import DEFAULT_SEVERITY

if TYPE_CHECKING:
    from lmr_author.validate.context import TaskContext

#: ``info`` rules read only info.json (they run with ``--schema-only``); ``task`` rules
#: need the loaded Task model and read the files of the task folder; ``run`` rules are
#: the findings of the proof in Docker (``validate --run``, `lmr_author.validate.dynamic`),
#: registered so that ``--list-rules``, ``--ignore`` and ``--select`` know them.
Stage = Literal["info", "task", "run"]
Check = Callable[["TaskContext"], Iterable[Finding]]


@dataclass(frozen=True)
class Rule:
    """A registered check."""

    id: str
    severity: Severity
    summary: str
    stage: Stage
    check: Check

    def to_json(self) -> dict[str, str]:
        return {
            "rule": self.id,
            "severity": self.severity,
            "stage": self.stage,
            "summary": self.summary,
        }


RULES: dict[str, Rule] = {}

#: Not a check: reported when a rule itself fails, so a bug never becomes a traceback.
INTERNAL_ERROR = "internal-error"


def rule(
    rule_id: str, severity: Severity, summary: str, *, stage: Stage = "task"
) -> Callable[[Check], Check]:
    """Register ``check`` under ``rule_id`` (kebab-case, stable: users filter on it)."""

    def register(check: Check) -> Check:
        if rule_id in RULES:
            raise ValueError(f"rule id {rule_id!r} is registered twice")
        RULES[rule_id] = Rule(rule_id, severity, summary, stage, check)
        DEFAULT_SEVERITY[rule_id] = severity
        return check

    return register


def run_rule(rule_id: str, severity: Severity, summary: str) -> str:
    """Register a finding of the Docker proof (it has no static check); return its id."""
    rule(rule_id, severity, summary, stage="run")(_proved_in_docker)
    return rule_id


def _proved_in_docker(ctx: TaskContext) -> Iterable[Finding]:
    return ()  # found by running the task's tests, not by reading its files


#: Rule modules in the order their rules run and appear in ``--list-rules``.
_RULE_MODULES = (
    "lmr_author.validate.rules_info",
    "lmr_author.validate.rules_paths",
    "lmr_author.validate.rules_functions",
    "lmr_author.validate.rules_tests",
    "lmr_author.validate.rules_strength",
    "lmr_author.validate.rules_docker",
    "lmr_author.validate.rules_leaks",
    "lmr_author.validate.rules_run",
)


def all_rules() -> list[Rule]:
    """Every rule, in the order they run (importing the rule modules first)."""
    for module in _RULE_MODULES:
        importlib.import_module(module)
    # The run rules come last even when `validate.dynamic` registered them first.
    return sorted(RULES.values(), key=lambda r: r.stage == "run")
