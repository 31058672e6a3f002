"""run_evaluation with a local (Docker-free) backend: verdicts, files, resume, infra errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lmr_author.eval_loop import (
    Submission,
    build_results,
    load_results,
    load_runs,
    run_evaluation,
)
from lmr_author.util.errors import UserError
from tests.eval_loop.evaltasks import (
    CORRECT,
    WRONG,
    LocalBackend,
    make_benchmark,
    make_folder_submission,
)


@pytest.fixture
def bench(tmp_path: Path) -> Path:
    return make_benchmark(tmp_path)


@pytest.fixture
def subs(tmp_path: Path) -> dict[str, Path]:
    root = tmp_path / "subs"
    return {
        "correct": make_folder_submission(root, "correct", {"01-Add": CORRECT, "02-Calc": CORRECT}),
        # 02-Calc left out: both its implementations have no submission
        "wrong": make_folder_submission(root, "wrong", {"01-Add": WRONG}),
    }


def _evaluate(bench: Path, subs: dict[str, Path], out: Path, backend: LocalBackend, **kw):  # type: ignore[no-untyped-def]
    return run_evaluation(bench, [Submission(p) for p in subs.values()], out, backend=backend, **kw)


def test_verdicts_files_and_summary(bench: Path, subs: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "out"
    backend = LocalBackend()
    results = _evaluate(bench, subs, out, backend, workers=2)

    assert not results.interrupted
    verdicts = {(r.system, r.task, r.implementation): (r.verdict, r.reason) for r in results.runs}
    assert verdicts[("correct", "01-Add", 1)] == ("pass", "")
    assert verdicts[("correct", "02-Calc", 2)] == ("pass", "")
    assert verdicts[("wrong", "01-Add", 1)][0] == "fail"
    assert "wrong answer" in verdicts[("wrong", "01-Add", 1)][1]
    assert verdicts[("wrong", "02-Calc", 1)] == ("error", "no submission")
    assert len(verdicts) == 8
    # images prepared once per task, runs only for real candidates
    assert sorted(backend.prepared) == ["01-Add", "02-Calc"]
    assert len(backend.ran) == 6

    correct = results.systems["correct"]
    assert (correct.passed, correct.implementations, correct.accuracy) == (4, 4, 1.0)
    wrong = results.systems["wrong"]
    assert (wrong.passed, wrong.implementations, wrong.accuracy) == (0, 4, 0.0)
    assert wrong.verdicts["fail"] == 2 and wrong.verdicts["error"] == 2
    assert wrong.categories["Arithmetic"].implementations == 2
    assert correct.categories["Multiplication"].accuracy == 1.0

    run = out / "runs" / "correct" / "01-Add" / "2"
    assert (run / "candidate.py").read_text() == CORRECT
    record = json.loads((run / "run.json").read_text())
    assert record["tests"][0]["log_file"] == "logs/unit_test_2.log"
    assert "Test Passed" in (run / "logs" / "unit_test_2.log").read_text()
    assert not (out / "runs" / "wrong" / "02-Calc" / "1" / "candidate.py").exists()
    assert not list(out.rglob("*.tmp"))

    stored = json.loads((out / "results.json").read_text())
    assert stored["benchmark"] == str(bench.resolve())
    assert stored == load_results(out).to_json()
    assert load_runs(out) == results.runs
    # results.json can be rebuilt from runs/ alone
    (out / "results.json").unlink()
    assert load_results(out).to_json()["systems"]["wrong"] == stored["systems"]["wrong"]


def test_rerun_skips_unchanged_runs_and_reruns_changed(
    bench: Path, subs: dict[str, Path], tmp_path: Path
) -> None:
    out = tmp_path / "out"
    first = _evaluate(bench, subs, out, LocalBackend())
    keys = {(r.system, r.task, r.implementation): r.run_key for r in first.runs}

    again = LocalBackend()
    skipped: list[bool] = []
    second = _evaluate(bench, subs, out, again, on_run=lambda _r, s: skipped.append(s))
    assert again.ran == []
    assert skipped == [True] * 8
    assert second.to_json() == first.to_json()

    # a changed candidate runs again; nothing else does
    (subs["wrong"] / "01-Add" / "repo" / "calc.py").write_text(CORRECT)
    changed = LocalBackend()
    third = _evaluate(bench, subs, out, changed)
    assert sorted(changed.ran) == [("01-Add", 1), ("01-Add", 2)]
    assert third.systems["wrong"].passed == 2
    new_keys = {(r.system, r.task, r.implementation): r.run_key for r in third.runs}
    assert new_keys[("wrong", "01-Add", 1)] != keys[("wrong", "01-Add", 1)]
    assert new_keys[("correct", "01-Add", 1)] == keys[("correct", "01-Add", 1)]

    # a changed task (its unit test) runs again for every system
    test = bench / "02-Calc" / "repo" / "unit_test" / "unit_test_1.py"
    test.write_text(test.read_text() + "\n# changed\n")
    task_changed = LocalBackend()
    _evaluate(bench, subs, out, task_changed)
    # the image holds the repo, so every implementation of the task (of 'correct' only:
    # 'wrong' has no candidate there) runs again, and no other task does
    assert sorted(task_changed.ran) == [("02-Calc", 1), ("02-Calc", 2)]

    # a changed image runs everything again; so does --force
    rebuilt = LocalBackend(image_salt="v2")
    _evaluate(bench, subs, out, rebuilt)
    assert len(rebuilt.ran) == 6
    forced = LocalBackend(image_salt="v2")
    _evaluate(bench, subs, out, forced, force=True)
    assert len(forced.ran) == 6


def test_infra_errors_are_apart_and_retried(
    bench: Path, subs: dict[str, Path], tmp_path: Path
) -> None:
    out = tmp_path / "out"
    results = _evaluate(bench, subs, out, LocalBackend(broken=("02-Calc",)))
    correct = results.systems["correct"]
    assert correct.verdicts["infra-error"] == 2
    assert (correct.passed, correct.implementations, correct.accuracy) == (2, 2, 1.0)
    assert {(e["task"], e["implementation"]) for e in correct.infra_errors} == {
        ("02-Calc", 1),
        ("02-Calc", 2),
    }
    assert "no such base image" in correct.infra_errors[0]["reason"]
    assert len(results.infra_errors) == 2  # 'wrong' has no candidate for 02-Calc: no image

    fixed = LocalBackend()
    healed = _evaluate(bench, subs, out, fixed)
    assert sorted(fixed.ran) == [("02-Calc", 1), ("02-Calc", 2)]
    assert healed.infra_errors == []
    assert healed.systems["correct"].passed == 4


def test_a_crashing_sandbox_is_an_infra_error(
    bench: Path, subs: dict[str, Path], tmp_path: Path
) -> None:
    results = _evaluate(bench, subs, tmp_path / "out", LocalBackend(crash=True))
    ran = [r for r in results.runs if r.reason != "no submission"]
    assert {r.verdict for r in ran} == {"infra-error"}
    assert "engine went away" in ran[0].reason
    assert results.systems["correct"].accuracy is None


def test_workers_run_in_parallel(tmp_path: Path) -> None:
    import time

    bench = make_benchmark(tmp_path, ("01-Add", "02-Calc", "03-More"), sleep=0.6)
    files = dict.fromkeys(("01-Add", "02-Calc", "03-More"), CORRECT)
    sub = make_folder_submission(tmp_path / "subs", "correct", files)
    start = time.monotonic()
    run_evaluation(bench, [Submission(sub)], tmp_path / "out", backend=LocalBackend(), workers=6)
    elapsed = time.monotonic() - start
    # six runs of >= 0.6 s each: serially at least 3.6 s
    assert elapsed < 3.0, elapsed


def test_task_filter_and_bad_input(bench: Path, subs: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "out"
    results = _evaluate(bench, subs, out, LocalBackend(), tasks=["02-Calc"])
    assert {r.task for r in results.runs} == {"02-Calc"}
    with pytest.raises(UserError, match="no such task: 09-Nope"):
        _evaluate(bench, subs, out, LocalBackend(), tasks=["09-Nope"])
    with pytest.raises(UserError, match="two submissions"):
        run_evaluation(
            bench,
            [Submission(subs["correct"]), Submission(subs["wrong"], "correct")],
            out,
            backend=LocalBackend(),
        )
    with pytest.raises(UserError, match="no goal file of any task"):
        empty = tmp_path / "empty"
        empty.mkdir()
        run_evaluation(bench, [Submission(empty)], out, backend=LocalBackend())
    with pytest.raises(UserError, match="not path-safe"):
        run_evaluation(bench, [Submission(subs["correct"], "a/b")], out, backend=LocalBackend())
    with pytest.raises(UserError, match="no such submission"):
        run_evaluation(bench, [Submission(tmp_path / "missing")], out, backend=LocalBackend())


def test_results_rebuilt_from_runs_match(
    bench: Path, subs: dict[str, Path], tmp_path: Path
) -> None:
    out = tmp_path / "out"
    results = _evaluate(bench, subs, out, LocalBackend())
    rebuilt = build_results(out, str(bench.resolve()))
    assert rebuilt.to_json() == results.to_json()


def test_unwritable_output_is_a_user_error(
    bench: Path, subs: dict[str, Path], tmp_path: Path
) -> None:
    out = tmp_path / "out"
    (out / "runs").mkdir(parents=True)
    (out / "runs" / "correct").write_text("a file where a folder belongs")
    with pytest.raises(UserError, match="cannot write the run of correct"):
        _evaluate(bench, subs, out, LocalBackend())


def test_import_stays_light() -> None:
    import subprocess
    import sys

    code = (
        "import sys, lmr_author.eval_loop;"
        "bad = [m for m in ('textual', 'rich', 'docker', 'libcst') if m in sys.modules];"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def test_load_results_errors(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="no evaluation results here"):
        load_results(tmp_path)
    (tmp_path / "results.json").write_text("{half")
    with pytest.raises(UserError, match="invalid JSON"):
        load_results(tmp_path)
