"""The rules of ``validate --run``: what the proof in Docker can find about a task.

They have no static check; `lmr_author.validate.dynamic` reports them after running the
tests on the golden and masked goal files. Registering them gives them a severity and a
summary, and lets ``--list-rules``, ``--ignore``, ``--select`` and ``--json`` know them.
"""

from __future__ import annotations

from lmr_author.domain.hardware import HARDWARE_KEY
from lmr_author.domain.task import INFO_FILE, Implementation, Task
from lmr_author.sandbox.needs import gpu_evidence
from lmr_author.sandbox.run_result import ImplementationRun
from lmr_author.validate.findings import Finding
from lmr_author.validate.rules import RULES, run_rule

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

RULE_NOT_ISOLATED = run_rule(
    "not-isolated",
    "warning",
    "the goal cannot run in a process of its own, so candidates run in the test's (--run)",
)

RULE_UNDECLARED_GPU = run_rule(
    "undeclared-gpu",
    "warning",
    f"the golden code needs a GPU that info.json '{HARDWARE_KEY}' does not declare (--run)",
)


def run_finding(rule_id: str, message: str, *, file: str = "", hint: str = "") -> Finding:
    """A finding of the Docker proof, with the severity its rule is registered with."""
    return Finding(rule_id, RULES[rule_id].severity, message, file=file, hint=hint)


def not_runnable_finding(reason: str) -> Finding:
    """The task's declared hardware is not here: nothing was run (not the tests' fault)."""
    return Finding(
        RULE_INFRA,
        RULES[RULE_INFRA].severity,
        "the task could not be checked on this machine (this is not a finding about the "
        f"task's tests): {reason}",
        file=INFO_FILE,
        where=f"$.{HARDWARE_KEY}",
        hint="Run 'lmr-author validate --run --gpus all' on a host with GPUs.",
    )


def undeclared_gpu_findings(
    task: Task, impl: Implementation, golden: ImplementationRun
) -> list[Finding]:
    """A hint to declare the GPU that the golden run (never a candidate's) shows it needs.

    ``validate --fix`` then writes ``"hardware": {"gpus": 1}``; memory is never guessed.
    """
    if task.hardware.needs_gpu or (line := gpu_evidence(golden)) is None:
        return []
    return [
        Finding(
            RULE_UNDECLARED_GPU,
            RULES[RULE_UNDECLARED_GPU].severity,
            f"implementation {impl.index}: the golden code needs a GPU ({line!r}) but "
            f"info.json's '{HARDWARE_KEY}' declares none, so Slurm cannot ask for one and a "
            "machine without a GPU runs it until it fails",
            file=INFO_FILE,
            where="$",
            hint=f'Add "{HARDWARE_KEY}": {{"gpus": 1}} (and "gpu_memory_gb" if it matters), '
            "or run 'lmr-author validate --run --fix' to add the GPU count.",
        )
    ]


def not_isolated_findings(
    impl: Implementation, golden: ImplementationRun, *, file: str
) -> list[Finding]:
    """Where the golden proof shows that candidates must run in the test's process."""
    if not golden.passed or golden.isolated:
        return []
    return [
        run_finding(
            RULE_NOT_ISOLATED,
            f"implementation {impl.index}: candidates run in the test's process, where a "
            "candidate written against the test can forge its verdict (read the expected "
            f"values, patch the assertions): {golden.not_isolated_why}",
            file=file,
            hint="Make the goal take and return data (arrays, tensors, numbers, containers, "
            "the objects the test passes in): no callbacks into the test, no generators, no "
            "objects of classes the test does not send; then run 'validate --run' again.",
        )
    ]
