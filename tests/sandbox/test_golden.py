"""Golden proofs: proven once per content, kept, and nothing kept for a failing golden;
isolated when the golden code passes so, in the test's process only when a value could
not cross (the channel's record), and "not proven" (never kept, never a downgrade) when
the isolated golden run ran out of time or memory or failed with nothing that could not
cross (issue 39)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from lmr_author.domain.task import Task, load_task
from lmr_author.images.task_images import ImageRef
from lmr_author.sandbox import golden as golden_module
from lmr_author.sandbox.decision import Expected
from lmr_author.sandbox.golden import Proof, proof_for, proof_key, prove, run_against_golden_counts
from lmr_author.sandbox.limits import Limits
from lmr_author.sandbox.run_result import ImplementationRun, TestVerdict
from lmr_author.sandbox.run_spec import RunSpec


@pytest.fixture(autouse=True)
def _fresh_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test as a fresh eval: nothing learned in this process about a proof key."""
    monkeypatch.setattr(golden_module, "_UNPROVEN", {})


def _task(root: Path) -> Task:
    (root / "repo" / "unit_test").mkdir(parents=True)
    (root / "golden_files").mkdir()
    (root / "repo" / "calc.py").write_text("def add(a, b):\n    pass\n")
    (root / "repo" / "unit_test" / "unit_test_1.py").write_text("assert True\n")
    (root / "golden_files" / "calc_golden.py").write_text("def add(a, b):\n    return a + b\n")
    impl = {
        "instruction": "Implement add.",
        "index": 1,
        "category": "Evaluation Metrics",
        "goal_file": "calc.py",
        "goal_function": "add",
        "class_name": "",
        "golden_file": "golden_files/calc_golden.py",
        "retrieval_context": [],
        "unit_test_file": "unit_test/unit_test_1.py",
    }
    info = {"instance_id": 1, "paper_name": "p", "folder_name": root.name,
            "repo_folder_name": "repo", "implementations": [impl]}  # fmt: skip
    (root / "info.json").write_text(json.dumps(info))
    return load_task(root)


def _run(
    verdict: str,
    tests: int,
    *,
    isolated: bool = True,
    crossings: tuple[str, ...] = (),
    reason: str = "",
    changed: tuple[str, ...] = (),
) -> ImplementationRun:
    test = TestVerdict(
        test_file="unit_test/unit_test_1.py",
        verdict=verdict,  # type: ignore[arg-type]
        reason=reason or ("an assertion failed" if verdict != "pass" else ""),
        duration_s=0.1,
        log="",
        exit_code=0,
        tests_run=tests,
        isolated=isolated,
        crossings=crossings,
        changed_inputs=changed,
    )
    return ImplementationRun(verdicts=[test], image_id="sha256:x", isolated=isolated)


IMAGE = ImageRef(tag="lmr-author/t:abc", image_id="sha256:x", built=False, workdir="/w/repo")


def test_the_golden_count_is_proven_once_and_kept(tmp_path: Path) -> None:
    task = _task(tmp_path / "01-Calc")
    impl = task.implementations[0]
    calls: list[tuple[bytes, bool]] = []

    def golden(source: bytes, isolated: bool) -> ImplementationRun:
        calls.append((source, isolated))
        return _run("pass", 4, isolated=isolated)

    wanted = Proof({"unit_test/unit_test_1.py": Expected(tests=4, changed=())}, isolated=True)
    assert proof_for(task, impl, IMAGE, golden, folder=tmp_path / "cache") == wanted
    assert proof_for(task, impl, IMAGE, golden, folder=tmp_path / "cache") == wanted
    assert calls == [(impl.golden_path.read_bytes(), True)]
    # Another content (the test changed) is proven again.
    impl.unit_test_path.write_text("assert 1\n")
    assert proof_for(task, impl, IMAGE, golden, folder=tmp_path / "cache") == wanted
    assert len(calls) == 2


def test_a_failing_golden_keeps_nothing(tmp_path: Path) -> None:
    task = _task(tmp_path / "01-Calc")
    impl = task.implementations[0]
    found = proof_for(
        task, impl, IMAGE, lambda _s, i: _run("fail", 1, isolated=i), folder=tmp_path / "c"
    )
    assert isinstance(found, str) and "does not pass this task's tests" in found
    assert not (tmp_path / "c" / f"{proof_key(task, impl, IMAGE)}.json").exists()


def test_a_goal_that_cannot_cross_is_proven_in_the_tests_process(tmp_path: Path) -> None:
    """The golden passes only in the test's process: candidates run there, and the proof
    says why (what could not cross), never the other way round."""
    task = _task(tmp_path / "01-Calc")
    impl = task.implementations[0]
    calls: list[bool] = []
    crossing = "answer: add: the return value holds a generator"

    def golden(_source: bytes, isolated: bool) -> ImplementationRun:
        calls.append(isolated)
        if isolated:
            return _run("error", 1, crossings=(crossing,))
        return _run("pass", 1, isolated=False)

    found = proof_for(task, impl, IMAGE, golden, folder=tmp_path / "c")
    assert calls == [True, False]
    assert found == Proof(
        {"unit_test/unit_test_1.py": Expected(tests=1, changed=())},
        isolated=False,
        not_isolated_why=crossing,
    )


def test_a_golden_that_fails_both_ways_proves_nothing(tmp_path: Path) -> None:
    task = _task(tmp_path / "01-Calc")
    impl = task.implementations[0]
    calls: list[bool] = []

    def golden(_source: bytes, isolated: bool) -> ImplementationRun:
        calls.append(isolated)
        return _run("fail", 1, isolated=isolated)

    assert isinstance(proof_for(task, impl, IMAGE, golden, folder=tmp_path / "c"), str)
    assert calls == [True, False]


def test_a_golden_isolated_that_infra_fails_is_not_retried_in_process(tmp_path: Path) -> None:
    task = _task(tmp_path / "01-Calc")
    impl = task.implementations[0]
    calls: list[bool] = []

    def golden(_source: bytes, isolated: bool) -> ImplementationRun:
        calls.append(isolated)
        return dataclasses.replace(_run("fail", 0), infra_error="the engine is gone")

    found = proof_for(task, impl, IMAGE, golden, folder=tmp_path / "c")
    assert isinstance(found, str) and "the engine is gone" in found
    assert calls == [True]


TIMEOUT = "no result within the time limit of 120 s"


@pytest.mark.parametrize(
    ("isolated_run", "calls_made"),
    [
        (lambda: _run("timeout", 0, reason=TIMEOUT), [True, True]),
        (lambda: _run("error", 0, reason="killed: out of memory (1024 MB)"), [True, True]),
        # The matplotlib case: state in /tmp, nothing that could not cross.
        (
            lambda: _run("error", 1, reason="exception: PermissionError: '/tmp/matplotlib-x'"),
            [True, False, True],
        ),
        # A crossing noted, but the run timed out: the limit, not the crossing.
        (lambda: _run("timeout", 0, reason=TIMEOUT, crossings=("answer: x",)), [True, True]),
    ],
)
def test_a_golden_that_fails_isolated_for_any_reason_but_a_crossing_is_not_proven(
    tmp_path: Path, isolated_run: Any, calls_made: list[bool]
) -> None:
    """Retried, then not proven: nothing kept (no downgrade on disk), the reason says
    so, and candidates never run in the test's process on its account."""
    task = _task(tmp_path / "01-Calc")
    impl = task.implementations[0]
    calls: list[bool] = []

    def golden(_source: bytes, isolated: bool) -> ImplementationRun:
        calls.append(isolated)
        return isolated_run() if isolated else _run("pass", 1, isolated=False)

    found = proof_for(task, impl, IMAGE, golden, folder=tmp_path / "c")
    assert isinstance(found, str) and found.startswith("not proven"), found
    assert calls == calls_made
    assert not list((tmp_path / "c").glob("*.json"))


def test_a_golden_that_passes_when_retried_is_proven_isolated(tmp_path: Path) -> None:
    runs = iter([_run("timeout", 0, reason=TIMEOUT), _run("pass", 2, changed=("self",))])
    proving = prove(lambda _isolated: next(runs))
    assert proving.state == "isolated" and proving.kept
    assert proving.run.verdicts[0].changed_inputs == ("self",)


def test_the_proof_key_holds_what_the_proof_depends_on(tmp_path: Path) -> None:
    task = _task(tmp_path / "01-Calc")
    impl = task.implementations[0]
    base = proof_key(task, impl, IMAGE, Limits())
    others = [
        proof_key(task, impl, IMAGE, Limits(timeout_s=30)),
        proof_key(task, impl, IMAGE, Limits(memory_mb=2048)),
        proof_key(task, impl, IMAGE, Limits(cpus=2)),
        proof_key(task, impl, IMAGE, Limits(pids=64)),
        proof_key(task, impl, IMAGE, Limits(gpus="all")),
        proof_key(task, impl, IMAGE, Limits(), protocol="legacy"),
        proof_key(task, impl, dataclasses.replace(IMAGE, image_id="sha256:y"), Limits()),
    ]
    assert len({base, *others}) == len(others) + 1
    assert proof_key(task, impl, IMAGE) == base  # no limits given: the defaults


class _Runner:
    """A `Runner` whose golden runs answer as told and whose candidate runs are noted."""

    def __init__(self, isolated_golden: ImplementationRun) -> None:
        self.isolated_golden = isolated_golden
        self.runs: list[RunSpec] = []

    def run_all(self, runs: Any, on_progress: Any = None) -> list[ImplementationRun]:
        outcomes = []
        for run in runs:
            self.runs.append(run)
            if run.expected is None and run.isolated:
                outcomes.append(self.isolated_golden)
            elif run.expected is None:
                outcomes.append(_run("pass", 1, isolated=False))
            else:
                outcomes.append(_run("fail", 1, isolated=run.isolated))
        return outcomes


def test_eval_does_not_score_candidates_of_an_unproven_golden_and_proves_again_next_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A time-out of the isolated golden run: the candidate is an infra-error of this
    eval, named, and never runs in the test's process; the next eval (a fresh
    process) proves again, and with the golden passing isolated the candidate runs
    isolated, held to the proof."""
    monkeypatch.setattr(golden_module, "cache_dir", lambda _name: tmp_path / "cache")
    monkeypatch.setattr(golden_module, "_UNPROVEN", {})
    task = _task(tmp_path / "01-Calc")
    impl = task.implementations[0]
    spec = RunSpec(task, impl, b"def add(a, b):\n    return 0\n", IMAGE)
    loaded = _Runner(_run("timeout", 0, reason=TIMEOUT))
    outcome = run_against_golden_counts(spec, loaded)
    assert outcome.infra_error is not None and outcome.infra_error.startswith(
        "not scored: not proven"
    )
    assert "time limit" in outcome.infra_error
    assert all(run.expected is None for run in loaded.runs)  # no candidate ran
    assert not any(not run.isolated for run in loaded.runs)
    # The same eval: no second proof for the next candidate.
    assert run_against_golden_counts(spec, loaded).infra_error == outcome.infra_error
    assert len(loaded.runs) == 2
    monkeypatch.setattr(golden_module, "_UNPROVEN", {})  # the next eval
    calm = _Runner(_run("pass", 1))
    outcome = run_against_golden_counts(spec, calm)
    assert outcome.infra_error is None and outcome.verdict == "fail"
    assert [run.isolated for run in calm.runs] == [True, True]
    assert calm.runs[-1].expected == {"unit_test/unit_test_1.py": Expected(tests=1, changed=())}


def test_a_kept_downgrade_needs_its_why_and_old_proofs_are_not_read(tmp_path: Path) -> None:
    """A proof in the test's process without why, or in the format before issue 39
    (which kept downgrades made by a time-out), is no proof: proven again."""
    task = _task(tmp_path / "01-Calc")
    impl = task.implementations[0]
    key = proof_key(task, impl, IMAGE)
    folder = tmp_path / "c"
    folder.mkdir()
    entry = {"tests": 1, "legacy_passed": None, "changed": []}
    for data in (
        {"key": key, "test_files": {"t": entry}, "isolated": False, "not_isolated_why": "x"},
        {"format": "golden-proof/2", "key": key, "test_files": {"t": entry}, "isolated": False},
    ):
        (folder / f"{key}.json").write_text(json.dumps(data))
        assert golden_module.load_proof(key, folder=folder) is None
