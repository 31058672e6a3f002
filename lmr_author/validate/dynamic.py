"""The dynamic proof that a task works: run its tests in Docker on golden and masked code.

A task is only useful when its unit tests tell a right implementation from a wrong one.
For each implementation this runs the tests three times in the task's image: with the
golden goal file (must pass, else error ``golden-fails``), with the masked goal file
(must not pass, else error ``test-does-not-discriminate``) and with the golden file
again (both golden runs must agree, else warning ``flaky``). A passing golden run is the
proof that `lmr_author.sandbox.golden` keeps: the number of tests (and legacy "Passed"
lines) every candidate is then held to; the masked and second golden runs are held to
it already. When the engine or the
image build fails, one error ``infra`` says so, plainly not blaming the task's tests.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from lmr_author.domain.task import Implementation, Task
from lmr_author.runtime.infra_error import InfraError
from lmr_author.sandbox.decision import Expected
from lmr_author.sandbox.golden import load_proof, proof_key, prove, save_proof
from lmr_author.sandbox.limits import Limits
from lmr_author.sandbox.needs import missing_resource, unmet_hardware
from lmr_author.sandbox.run_result import ImplementationRun
from lmr_author.sandbox.run_spec import Runner, RunSpec
from lmr_author.sandbox.runner import LocalRunner
from lmr_author.validate.evidence import ImplementationProof, proof_of
from lmr_author.validate.findings import Finding
from lmr_author.validate.rules_leaks import installed_findings
from lmr_author.validate.rules_run import (
    RULE_FLAKY,
    RULE_GOLDEN_FAILS,
    RULE_INFRA,
    RULE_NOT_DISCRIMINATING,
    not_isolated_findings,
    not_runnable_finding,
    run_finding,
    undeclared_gpu_findings,
)

if TYPE_CHECKING:
    import docker


def run_dynamic_checks(
    task: Task,
    *,
    base_image: str | None = None,
    timeout_s: float = 120.0,
    client: docker.DockerClient | None = None,
    protocol: str = "auto",
    gpus: str | None = None,
    hf_cache: str | None = None,
    on_progress: Callable[[str], None] | None = None,
    on_log: Callable[[str], None] | None = None,
    runner: Runner | None = None,
    on_proof: Callable[[ImplementationProof], None] | None = None,
) -> list[Finding]:
    """Build the task's image and prove, per implementation, that its tests discriminate.

    ``on_progress`` gets a line as each run starts; ``on_log`` the lines of the image
    build as they come (nothing when the image is cached). ``runner`` is where the runs
    execute (default: here, with ``client``); the image is built here either way.
    ``on_proof`` gets the counts of each implementation whose golden and masked runs
    both ran (`evidence`).
    """
    from lmr_author.images.task_images import ensure_image
    from lmr_author.runtime.engine import get_client

    limits = Limits(timeout_s=timeout_s, gpus=gpus, hf_cache=hf_cache)
    if (declared := unmet_hardware(task, limits)) is not None:
        return [not_runnable_finding(declared)]  # nothing built or run
    try:
        client = client or get_client()
        image = ensure_image(task, client=client, base_image=base_image, on_log=on_log)
    except InfraError as error:
        return [_infra_finding(error.render(), file="Dockerfile")]
    runner = runner or LocalRunner(client)
    # The goal among the image's installed packages: one scan of the image, no task code.
    findings: list[Finding] = installed_findings(task, image, client)
    for impl in task.implementations:
        golden_file = _relative(task, impl.golden_path)
        try:
            golden = impl.golden_path.read_bytes()
        except OSError as error:
            findings.append(
                run_finding(
                    RULE_GOLDEN_FAILS,
                    f"implementation {impl.index}: cannot read the golden file "
                    f"({error.strerror}), so the tests cannot be proven",
                    file=golden_file,
                    hint="Restore the golden file named by golden_file in info.json.",
                )
            )
            continue
        proof = RunSpec(
            task, impl, golden, image, limits, protocol, label=f"{task.name} #{impl.index}: "
        )

        def run_golden(isolated: bool, proof: RunSpec = proof) -> ImplementationRun:
            label = "golden" if isolated else "golden, in the test's process"
            run = dataclasses.replace(_labelled(proof, label), isolated=isolated)
            [outcome] = runner.run_all([run], on_progress)
            return outcome

        proving = prove(run_golden)
        golden_run = proving.run
        runs: list[ImplementationRun] = [golden_run]
        if golden_run.infra_error is None and (
            reason := missing_resource(impl, golden_run, limits)
        ):
            # Not the tests' fault: the task cannot run on this machine as given.
            runs[-1] = dataclasses.replace(golden_run, infra_error=reason)
            findings.extend(undeclared_gpu_findings(task, impl, golden_run))
        elif proving.state == "not-proven":
            # Out of time or memory, or an isolated-only difference: ours, not the
            # tests', and never a reason to run candidates in the test's process.
            findings.append(
                run_finding(
                    RULE_INFRA,
                    f"implementation {impl.index}: the golden proof could not be made here "
                    f"(this is not a finding about the task's tests): {proving.why}",
                    file=_relative(task, impl.golden_path),
                    hint="Run 'lmr-author validate --run' again on a less loaded machine or "
                    "with a longer --timeout; eval does not score its candidates until then.",
                )
            )
            continue
        elif golden_run.infra_error is None:
            # The proof: what the golden code runs is what candidates are held to; the
            # masked and second golden runs are held to it already (and run together).
            # A golden that fails is held to nothing: its runs still show the rest.
            expected = None
            key = proof_key(task, impl, image, limits, protocol=protocol)
            if save_proof(key, proving) and (kept := load_proof(key)) is not None:
                expected = kept.expected
            followers = [
                _labelled(proof, "masked", candidate=None, expected=expected),
                _labelled(proof, "golden again", expected=expected),
            ]
            followers = [
                dataclasses.replace(
                    run, isolated=golden_run.isolated, test_reads=golden_run.test_reads
                )
                for run in followers
            ]
            runs += runner.run_all(followers, on_progress)
            if on_proof is not None and all(run.infra_error is None for run in runs):
                on_proof(proof_of(impl.index, runs[0], runs[1]))
            findings.extend(
                not_isolated_findings(impl, golden_run, file=_relative(task, impl.unit_test_path))
            )
        findings.extend(findings_from_runs(task, impl, runs))
    return findings


_KEEP = object()


def _labelled(
    run: RunSpec,
    label: str,
    *,
    candidate: bytes | object | None = _KEEP,
    expected: dict[str, Expected] | None = None,
) -> RunSpec:
    """``run`` (the golden run) as its follower ``label``: another candidate, expected counts."""
    source = run.candidate if candidate is _KEEP else candidate
    assert source is None or isinstance(source, bytes)
    return dataclasses.replace(run, label=run.label + label, candidate=source, expected=expected)


def findings_from_runs(
    task: Task, impl: Implementation, runs: list[ImplementationRun]
) -> list[Finding]:
    """Judge the runs [golden, masked, golden again] of one implementation (fewer on infra)."""
    for run in runs:
        if run.infra_error is not None:
            return [_infra_finding(f"implementation {impl.index}: {run.infra_error}")]
    findings: list[Finding] = []
    test_file = _relative(task, impl.unit_test_path)
    golden = runs[0] if runs else None
    masked = runs[1] if len(runs) > 1 else None
    again = runs[2] if len(runs) > 2 else None
    if golden is not None and not golden.passed:
        findings.append(
            run_finding(
                RULE_GOLDEN_FAILS,
                f"implementation {impl.index}: the tests do not pass on the golden "
                f"goal file ({golden.verdict}: {golden.reason})",
                file=_relative(task, impl.golden_path),
                hint="Fix the golden file, the tests or the Dockerfile until the golden code "
                "passes; run the test in the image to see its log.",
            )
        )
    if masked is not None and masked.passed:
        findings.append(
            run_finding(
                RULE_NOT_DISCRIMINATING,
                f"implementation {impl.index}: the tests pass on the masked goal file, "
                "so they cannot tell a wrong implementation from a right one",
                file=test_file,
                hint="Make the tests check the goal function's results (assert on outputs); "
                "a legacy test must log 'Failed' when they are wrong.",
            )
        )
    if golden is not None and again is not None and _outcome(golden) != _outcome(again):
        findings.append(
            run_finding(
                RULE_FLAKY,
                f"implementation {impl.index}: two runs on the golden goal file "
                f"disagree ({golden.verdict}, then {again.verdict})",
                file=test_file,
                hint="Seed random generators and avoid timing, network or order dependence.",
            )
        )
    return findings


def _outcome(run: ImplementationRun) -> list[tuple[str, str]]:
    return [(item.test_file, item.verdict) for item in run.verdicts]


def _infra_finding(detail: str, *, file: str = "") -> Finding:
    return run_finding(
        RULE_INFRA,
        "the Docker sandbox failed, so the task could not be checked "
        f"(this is not a finding about the task's tests): {detail}",
        file=file,
        hint="Check that the Docker engine runs and that the task image builds, then run "
        "'lmr-author validate --run' again.",
    )


def _relative(task: Task, path: Path) -> str:
    try:
        return path.relative_to(task.path).as_posix()
    except ValueError:
        return str(path)
