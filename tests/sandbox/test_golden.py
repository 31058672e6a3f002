"""Golden proofs: proven once per content, kept, and nothing kept for a failing golden."""

from __future__ import annotations

import json
from pathlib import Path

from lmr_author.sandbox.golden import expected_for, proof_key
from lmr_author.sandbox.images import ImageRef
from lmr_author.sandbox.results import ImplementationRun, TestVerdict
from lmr_author.sandbox.verdicts import Expected
from lmr_author.task import Task, load_task


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


def _run(verdict: str, tests: int) -> ImplementationRun:
    test = TestVerdict(
        test_file="unit_test/unit_test_1.py",
        verdict=verdict,  # type: ignore[arg-type]
        reason="",
        duration_s=0.1,
        log="",
        exit_code=0,
        tests_run=tests,
    )
    return ImplementationRun(verdicts=[test], image_id="sha256:x")


IMAGE = ImageRef(tag="lmr-author/t:abc", image_id="sha256:x", built=False, workdir="/w/repo")


def test_the_golden_count_is_proven_once_and_kept(tmp_path: Path) -> None:
    task = _task(tmp_path / "01-Calc")
    impl = task.implementations[0]
    calls: list[bytes] = []

    def golden(source: bytes) -> ImplementationRun:
        calls.append(source)
        return _run("pass", 4)

    wanted = {"unit_test/unit_test_1.py": Expected(tests=4)}
    assert expected_for(task, impl, IMAGE, golden, folder=tmp_path / "cache") == wanted
    assert expected_for(task, impl, IMAGE, golden, folder=tmp_path / "cache") == wanted
    assert calls == [impl.golden_path.read_bytes()]
    # Another content (the test changed) is proven again.
    impl.unit_test_path.write_text("assert 1\n")
    assert expected_for(task, impl, IMAGE, golden, folder=tmp_path / "cache") == wanted
    assert len(calls) == 2


def test_a_failing_golden_keeps_nothing(tmp_path: Path) -> None:
    task = _task(tmp_path / "01-Calc")
    impl = task.implementations[0]
    found = expected_for(task, impl, IMAGE, lambda _s: _run("fail", 1), folder=tmp_path / "c")
    assert found is None
    assert not (tmp_path / "c" / f"{proof_key(task, impl, IMAGE)}.json").exists()
