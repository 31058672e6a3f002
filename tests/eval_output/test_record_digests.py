"""Run records verify: each kind of damage is found, named, and resume runs it again;
records of the first format (no digests) are still read."""

from __future__ import annotations

import errno
import json
from pathlib import Path

import pytest

from lmr_author.eval_loop import Submission, run_evaluation
from lmr_author.eval_output import (
    RunRecord,
    load_run,
    run_dir,
    save_run,
    scan_runs,
    verify_run,
)
from lmr_author.eval_output import (
    TestRecord as FileRecord,
)
from lmr_author.util.atomic import WriteError
from tests.eval_loop.evaltasks import CORRECT, LocalBackend, make_benchmark, make_folder_submission


def _record() -> RunRecord:
    return RunRecord(
        run_key="a" * 64,
        system="sys",
        task="01-Add",
        implementation=1,
        category=None,
        goal_file="calc.py",
        goal_function="add",
        class_name="",
        candidate_sha256="b" * 64,
        image_id="sha256:1",
        verdict="fail",
        reason="unit_test/unit_test_1.py: assertion failed",
        tests=[FileRecord("unit_test/unit_test_1.py", "fail", "assertion failed", 0.2, "")],
    )


@pytest.fixture
def saved(tmp_path: Path) -> tuple[Path, Path]:
    folder = save_run(
        tmp_path,
        _record(),
        candidate=b"def add(a, b):\n    return a - b\n",
        logs={"unit_test/unit_test_1.py": "Traceback...\nAssertionError\n"},
    )
    return tmp_path, folder


def _verify(output: Path, folder: Path) -> list[str]:
    return verify_run(output, load_run(folder / "run.json"))


def test_a_record_as_written_verifies(saved: tuple[Path, Path]) -> None:
    output, folder = saved
    data = json.loads((folder / "run.json").read_text())
    assert data["schema_version"] == 2
    assert sorted(data["files"]) == ["candidate.py", "logs/unit_test_1.log"]
    assert _verify(output, folder) == []


@pytest.mark.parametrize(
    ("damage", "named"),
    [
        (lambda f: (f / "logs" / "unit_test_1.log").unlink(), "logs/unit_test_1.log is missing"),
        (
            lambda f: (f / "candidate.py").write_bytes(b"def add(a, b):\n    return a + b\n"),
            "candidate.py is not the file that was written",
        ),
        (
            lambda f: (f / "run.json").write_text(
                (f / "run.json").read_text().replace('"verdict": "fail"', '"verdict": "pass"')
            ),
            "its fields were changed after it was written",
        ),
        (
            lambda f: (f / "run.json").write_text(
                json.dumps(
                    {
                        k: v
                        for k, v in json.loads((f / "run.json").read_text()).items()
                        if k != "record_sha256"
                    }
                )
            ),
            "no digest of its own fields",
        ),
    ],
    ids=["deleted-log", "garbled-candidate", "edited-verdict", "digest-removed"],
)
def test_each_kind_of_damage_is_found_and_named(saved: tuple[Path, Path], damage, named) -> None:  # type: ignore[no-untyped-def]
    output, folder = saved
    damage(folder)
    problems = _verify(output, folder)
    assert any(named in problem for problem in problems), problems
    records, lines = scan_runs(output)  # report, judge and review leave it out, saying so
    assert records == []
    assert len(lines) == 1 and named in lines[0] and "run.json" in lines[0]


def test_a_record_of_the_first_format_is_still_read(tmp_path: Path) -> None:
    data = _record().to_json()
    for key in ("files", "record_sha256"):
        data.pop(key)
    data["schema_version"] = 1
    folder = run_dir(tmp_path, "sys", "01-Add", 1)
    folder.mkdir(parents=True)
    (folder / "run.json").write_text(json.dumps(data))
    record = load_run(folder / "run.json")
    assert verify_run(tmp_path, record) == []
    assert scan_runs(tmp_path)[0] == [record]


def test_resume_runs_a_damaged_record_again_and_says_why(tmp_path: Path) -> None:
    bench = make_benchmark(tmp_path)
    sub = make_folder_submission(tmp_path / "subs", "correct", {"01-Add": CORRECT})
    out = tmp_path / "out"
    run_evaluation(bench, [Submission(sub)], out, backend=LocalBackend(), tasks=["01-Add"])
    folder = run_dir(out, "correct", "01-Add", 2)
    (folder / "logs" / "unit_test_2.log").unlink()
    notices: list[str] = []
    again = LocalBackend()
    run_evaluation(
        bench,
        [Submission(sub)],
        out,
        backend=again,
        tasks=["01-Add"],
        on_notice=notices.append,
    )
    assert again.ran == [("01-Add", 2)]
    assert notices == [
        "the stored run of correct 01-Add#2 does not verify (logs/unit_test_2.log is "
        "missing): running it again"
    ]
    assert _verify(out, folder) == []


def test_a_full_disk_says_so() -> None:
    error = WriteError(Path("/nowhere/results.json"), OSError(errno.ENOSPC, "No space left"))
    assert "the disk is full" in str(error)
    assert "Free space on the disk" in str(error)
    assert "folder exists" not in str(error)


def test_report_leaves_out_a_record_that_does_not_verify_and_says_which(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from lmr_author.cli import main

    bench = make_benchmark(tmp_path)
    sub = make_folder_submission(tmp_path / "subs", "correct", {"01-Add": CORRECT})
    out = tmp_path / "out"
    run_evaluation(bench, [Submission(sub)], out, backend=LocalBackend(), tasks=["01-Add"])
    assert main(["report", str(out)]) == 0
    capsys.readouterr()
    edited = run_dir(out, "correct", "01-Add", 1) / "run.json"
    edited.write_text(edited.read_text().replace('"verdict": "pass"', '"verdict": "fail"', 1))
    assert main(["report", str(out)]) == 1
    said = capsys.readouterr()
    err = " ".join(said.err.split())
    assert f"report: left out: {edited}: the run record does not verify" in err
    assert "| correct | – | 100.0 | 1 |" in said.out  # the other run, alone
