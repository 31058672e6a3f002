"""Golden proofs: proven once per content, kept, and nothing kept for a failing golden;
isolated when the golden code passes so, else in the test's process with why."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from lmr_author.domain.task import Task, load_task
from lmr_author.images.task_images import ImageRef
from lmr_author.sandbox.decision import Expected
from lmr_author.sandbox.golden import Proof, proof_for, proof_key
from lmr_author.sandbox.run_result import ImplementationRun, TestVerdict


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
    verdict: str, tests: int, *, isolated: bool = True, crossings: tuple[str, ...] = ()
) -> ImplementationRun:
    test = TestVerdict(
        test_file="unit_test/unit_test_1.py",
        verdict=verdict,  # type: ignore[arg-type]
        reason="an assertion failed" if verdict != "pass" else "",
        duration_s=0.1,
        log="",
        exit_code=0,
        tests_run=tests,
        isolated=isolated,
        crossings=crossings,
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

    wanted = Proof({"unit_test/unit_test_1.py": Expected(tests=4)}, isolated=True)
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
    assert found is None
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
        {"unit_test/unit_test_1.py": Expected(tests=1)}, isolated=False, not_isolated_why=crossing
    )


def test_a_golden_that_fails_both_ways_proves_nothing(tmp_path: Path) -> None:
    task = _task(tmp_path / "01-Calc")
    impl = task.implementations[0]
    calls: list[bool] = []

    def golden(_source: bytes, isolated: bool) -> ImplementationRun:
        calls.append(isolated)
        return _run("fail", 1, isolated=isolated)

    assert proof_for(task, impl, IMAGE, golden, folder=tmp_path / "c") is None
    assert calls == [True, False]


def test_a_golden_isolated_that_infra_fails_is_not_retried_in_process(tmp_path: Path) -> None:
    task = _task(tmp_path / "01-Calc")
    impl = task.implementations[0]
    calls: list[bool] = []

    def golden(_source: bytes, isolated: bool) -> ImplementationRun:
        calls.append(isolated)
        return dataclasses.replace(_run("fail", 0), infra_error="the engine is gone")

    assert proof_for(task, impl, IMAGE, golden, folder=tmp_path / "c") is None
    assert calls == [True]
