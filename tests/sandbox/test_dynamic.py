"""`run_dynamic_checks`: golden passes, masked fails, golden twice agrees."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from lmr_author.domain.task import Task
from lmr_author.images.task_images import ImageRef
from lmr_author.sandbox.decision import Expected
from lmr_author.sandbox.golden import Proof, load_proof, proof_key
from lmr_author.sandbox.limits import Limits
from lmr_author.sandbox.run_result import ImplementationRun, TestVerdict
from lmr_author.validate.dynamic import findings_from_runs, run_dynamic_checks
from tests.support.sandbox_tasks import GOLDEN, MASKED


def _rules(findings: list[Any]) -> list[tuple[str, str]]:
    return [(f.rule, f.severity) for f in findings]


@pytest.mark.docker
def test_a_sound_task_has_no_findings(
    calc_task: tuple[Task, ImageRef], legacy_task: tuple[Task, ImageRef], docker_client: Any
) -> None:
    assert run_dynamic_checks(calc_task[0], client=docker_client, timeout_s=60) == []
    assert run_dynamic_checks(legacy_task[0], client=docker_client, timeout_s=60) == []
    # The proof is kept: what the golden code runs is what candidates are held to.
    for (task, image), wanted in (
        (calc_task, Expected(tests=1, changed=())),
        (legacy_task, Expected(tests=1, legacy_passed=2, changed=())),
    ):
        impl = task.implementations[0]
        # Kept under the limits it was proven with (issue 39: the key holds them).
        kept = load_proof(proof_key(task, impl, image, Limits(timeout_s=60)))
        assert kept == Proof({impl.unit_test_file: wanted}, isolated=True)


@pytest.mark.docker
def test_a_test_that_checks_nothing_does_not_discriminate(
    task_factory: Callable[..., Task], docker_client: Any
) -> None:
    task = task_factory(tag="lax", test_source="from calc import add\nprint(add(1, 2))\n")
    findings = run_dynamic_checks(task, client=docker_client, timeout_s=60)
    assert _rules(findings) == [("test-does-not-discriminate", "error")]
    assert findings[0].file == "calc_repo/unit_test/unit_test_1.py"


@pytest.mark.docker
def test_a_broken_golden_file_is_reported(
    task_factory: Callable[..., Task], docker_client: Any
) -> None:
    task = task_factory(tag="badgolden", golden=GOLDEN.replace("a + b", "a * b"), masked=MASKED)
    findings = run_dynamic_checks(task, client=docker_client, timeout_s=60)
    assert _rules(findings) == [("golden-fails", "error")]
    assert findings[0].file == "golden_files/calc_golden.py"
    assert "assertion failed" in findings[0].message


@pytest.mark.docker
def test_infrastructure_failure_is_not_blamed_on_the_task(
    task_factory: Callable[..., Task], docker_client: Any
) -> None:
    task = task_factory(tag="infra", dockerfile="FROM lmr-author-test/unpullable:0\n")
    findings = run_dynamic_checks(task, client=docker_client, timeout_s=60)
    assert _rules(findings) == [("infra", "error")]
    assert "not a finding about the task" in findings[0].message


def _run(verdict: str) -> ImplementationRun:
    item = TestVerdict("unit_test/unit_test_1.py", verdict, "", 0.1, "", 0)  # type: ignore[arg-type]
    return ImplementationRun([item], "sha256:x")


def test_disagreeing_golden_runs_are_flaky(tmp_path: Any) -> None:
    from tests.support.sandbox_tasks import write_task

    task = write_task(tmp_path)
    impl = task.implementations[0]
    findings = findings_from_runs(task, impl, [_run("pass"), _run("fail"), _run("fail")])
    assert _rules(findings) == [("flaky", "warning")]
    both = findings_from_runs(task, impl, [_run("fail"), _run("pass"), _run("pass")])
    assert _rules(both) == [
        ("golden-fails", "error"),
        ("test-does-not-discriminate", "error"),
        ("flaky", "warning"),
    ]
    infra = ImplementationRun([], "sha256:x", infra_error="engine went away")
    assert _rules(findings_from_runs(task, impl, [_run("pass"), infra])) == [("infra", "error")]
