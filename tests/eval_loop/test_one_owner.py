"""Where the readers of an eval output folder used to disagree, they now agree.

``eval``, the judge, the review, the agreement and ``validate --run`` all go through
`lmr_author.domain.verdicts` and `lmr_author.eval_output`; each test here failed while each of
them had its own copy of a rule.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lmr_author.domain.task import load_task
from lmr_author.domain.verdicts import VERDICTS, counts_for_accuracy, worst_of
from lmr_author.eval_loop import Submission, build_results, run_evaluation
from lmr_author.eval_output import candidate_sha256, load_runs, run_dir
from lmr_author.judge.inputs import find_runs, read_benchmark_path
from lmr_author.judge.runner import summarize_output
from lmr_author.labels.sources import load_judge_source
from lmr_author.review.items import load_queue, load_review_items
from lmr_author.sandbox.run_result import ImplementationRun, TestVerdict
from lmr_author.validate.dynamic import findings_from_runs
from tests.eval_loop.evaltasks import (
    CORRECT,
    LocalBackend,
    make_benchmark,
    make_folder_submission,
)
from tests.support.eval_output import RunSpec, build_eval_output


def _test(verdict: str, name: str) -> TestVerdict:
    return TestVerdict(
        test_file=f"unit_test/{name}.py",
        verdict=verdict,  # type: ignore[arg-type]
        reason=f"{name} gave {verdict}",
        duration_s=0.1,
        log="",
        exit_code=1,
    )


class _FixedBackend(LocalBackend):
    """Gives every candidate the same test verdicts, whatever its code."""

    def __init__(self, verdicts: list[str]) -> None:
        super().__init__()
        self.verdicts = verdicts

    def run(self, task, implementation, candidate, image):  # type: ignore[no-untyped-def]
        tests = [_test(v, f"unit_test_{k}") for k, v in enumerate(self.verdicts, 1)]
        return ImplementationRun(verdicts=tests, image_id=image.image_id)


@pytest.mark.parametrize(
    "tests",
    [["error", "timeout"], ["timeout", "error"], ["fail", "error"], ["pass", "fail"]],
)
def test_eval_and_validate_give_a_run_the_same_verdict(tmp_path: Path, tests: list[str]) -> None:
    bench = make_benchmark(tmp_path, names=("01-Add",), functions=("add",))
    system = make_folder_submission(tmp_path / "subs", "s", {"01-Add": CORRECT})
    results = run_evaluation(
        bench, [Submission(system)], tmp_path / "out", backend=_FixedBackend(tests)
    )
    [record] = results.runs
    task = load_task(bench / "01-Add")
    run = ImplementationRun(
        verdicts=[_test(v, f"unit_test_{k}") for k, v in enumerate(tests, 1)], image_id="x"
    )
    [finding] = findings_from_runs(task, task.implementation(1), [run])  # golden fails
    assert record.verdict == run.verdict == worst_of(tests)
    assert f"({record.verdict}: {record.reason})" in finding.message


def test_worst_of_ranks_infra_error_then_timeout_then_error_then_fail() -> None:
    assert worst_of(["pass", "fail", "error", "timeout", "infra-error"]) == "infra-error"
    assert worst_of(["error", "timeout", "fail"]) == "timeout"
    assert worst_of(["fail", "error", "pass"]) == "error"
    assert worst_of(["pass", "fail"]) == "fail"
    assert worst_of(["pass", "pass"]) == "pass"
    assert worst_of([]) == "error"  # no test ran: never a pass
    assert worst_of(["pass", "looks fine"]) == "error"  # an unknown word is no pass
    assert [v for v in VERDICTS if not counts_for_accuracy(v)] == ["infra-error"]


def test_eval_and_judge_table_agree_on_accuracy_with_an_infra_error(tmp_path: Path) -> None:
    output = build_eval_output(
        tmp_path,
        [
            RunSpec("s", implementation=1, verdict="pass"),
            RunSpec("s", implementation=2, verdict="infra-error"),
        ],
    )
    from_eval = build_results(output).systems["s"]  # what eval reports
    from_judge = summarize_output(output).systems["s"]
    assert from_eval.accuracy == 1.0
    assert from_judge.unit_tests.percent == 100.0
    assert (from_judge.runs, from_judge.unit_tests.counted, from_judge.passed) == (2, 1, 1)


def test_judge_and_review_find_the_same_benchmark_from_another_cwd(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    output = build_eval_output(tmp_path, [RunSpec("s")])
    results = output / "results.json"
    data = json.loads(results.read_text())
    data["benchmark"] = os.path.relpath(tmp_path / "benchmark", output)  # "../benchmark"
    results.write_text(json.dumps(data))
    elsewhere = tmp_path / "elsewhere" / "deeper"
    elsewhere.mkdir(parents=True)
    monkeypatch.chdir(elsewhere)
    expected = (tmp_path / "benchmark").resolve()
    _, review_benchmark = load_queue(output)
    assert read_benchmark_path(output) == expected
    assert review_benchmark == expected


def test_judge_review_and_agreement_share_one_candidate_identity(tmp_path: Path) -> None:
    """An unspliced prediction without a hash in run.json: the file's hash, everywhere."""
    output = build_eval_output(tmp_path, [RunSpec("s", verdict="error")])
    folder = run_dir(output, "s", "01-Toy", 1)
    (folder / "candidate.py").unlink()
    (folder / "prediction.py").write_text("def scale(values, factor): ...\n")
    run = json.loads((folder / "run.json").read_text())
    run["candidate_sha256"] = None
    (folder / "run.json").write_text(json.dumps(run))
    expected = candidate_sha256((folder / "prediction.py").read_bytes())
    [judged], problems = find_runs(output)
    [reviewed] = load_review_items(output)
    agreement_runs = load_judge_source(output).runs
    assert problems == []
    assert judged.candidate_sha256 == reviewed.candidate_sha256 == expected
    assert agreement_runs["s", "01-Toy", 1].candidate_sha256 == expected
    assert [r.key for r in load_runs(output)] == [reviewed.key] == [("s", "01-Toy", 1)]


OWNER_VERDICTS = "lmr_author.domain.verdicts"


@pytest.mark.parametrize(
    ("module", "allowed"),
    [
        ("lmr_author.domain.verdicts", set()),
        ("lmr_author.domain.item_key", set()),
        (
            "lmr_author.eval_output",
            {
                "lmr_author.util.atomic",
                "lmr_author.domain.item_key",
                "lmr_author.util.json_input",
                OWNER_VERDICTS,
            },
        ),
    ],
)
def test_the_owners_stay_low_in_the_import_graph(module: str, allowed: set[str]) -> None:
    """Everything imports the owners, so they import almost nothing of ours and never draw.

    Counted beyond what ``import lmr_author`` itself loads (the package's public API).
    """
    code = (
        "import importlib, json, sys\n"
        "def ours(): return {m for m in sys.modules\n"
        "    if m.split('.')[0] in ('lmr_author', 'rich', 'textual')}\n"
        "import lmr_author\n"
        "before = ours()\n"
        f"importlib.import_module({module!r})\n"
        "print(json.dumps(sorted(ours() - before)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    own = {module} | {m for m in json.loads(done.stdout) if m.startswith(module + ".")}
    assert set(json.loads(done.stdout)) - own <= allowed
