"""The rules of ``validate --run``: what the proof in Docker can find about a task.

They have no static check; `lmr_author.validate.dynamic` reports them after running the
tests on the golden and masked goal files. Registering them gives them a severity and a
summary, and lets ``--list-rules``, ``--ignore``, ``--select`` and ``--json`` know them.
"""

from __future__ import annotations

from lmr_author.validate.findings import Finding
from lmr_author.validate.registry import RULES, run_rule

RULE_GOLDEN_FAILS = run_rule(
    "golden-fails", "error", "the unit tests do not pass on the golden goal file (--run)"
)
RULE_NOT_DISCRIMINATING = run_rule(
    "test-does-not-discriminate", "error", "the unit tests pass on the masked goal file (--run)"
)
RULE_FLAKY = run_rule("flaky", "warning", "two runs on the golden goal file disagree (--run)")
RULE_INFRA = run_rule(
    "infra", "error", "the Docker sandbox failed, so the task could not be proven (--run)"
)


def run_finding(rule_id: str, message: str, *, file: str = "", hint: str = "") -> Finding:
    """A finding of the Docker proof, with the severity its rule is registered with."""
    return Finding(rule_id, RULES[rule_id].severity, message, file=file, hint=hint)
