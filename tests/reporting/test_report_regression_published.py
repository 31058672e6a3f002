"""`report --regression --published-results ...` fits Table 5 on the test logs of
published-shape results.txt files and the benchmark's tasks; the coefficients equal
statsmodels run directly on the same table, and the tasks it cannot measure are listed."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import numpy as np
import pytest
import statsmodels.api as sm

from lmr_author.cli import main
from lmr_author.domain.task import load_task
from lmr_author.reporting.repo_metrics import implementation_metrics
from tests.support.eval_output import GOLDEN_SOURCE, write_task

#: Benchmark tasks (folder, implementations); 11-Broken loses its repository folder.
TASKS = [(f"{n:02d}-T{n}", 2 if n == 9 else 1) for n in range(1, 12)]
BROKEN = "11-T11"
#: In the results.txt files but not in the benchmark.
GHOST = "12-Ghost"
#: (folder agent, folder model, canonical system)
SYSTEMS = (
    ("OpenHands", "gpt4.1", "openhands_agent-gpt4.1"),
    ("OpenHands", "gpt4o", "openhands_agent-gpt4o"),
    ("OpenHands", "o4mini", "openhands_agent-o4mini"),
)
#: This system's results.txt lists task 5 without logs ("is not a directory"): a failure.
NO_LOGS = ("o4mini", 5)
#: This system's log of task 3 is named unit_test.log (older published runs).
BARE_LOG = ("gpt4o", 3)
PREDICTORS = ("avg_dir_depth", "avg_branch_factor", "directory_imbalance", "goal_function_length")


def _benchmark(folder: Path) -> Path:
    """Tasks with their own trees and golden-file lengths, so the predictors vary."""
    for n, (name, count) in enumerate(TASKS):
        task = write_task(folder, name, implementations=count)
        repo = task / "toy-repo"
        for depth in range(n % 4):
            sub = repo.joinpath(*[f"d{i}" for i in range(depth + 1)])
            sub.mkdir(parents=True, exist_ok=True)
            (sub / "m.py").write_text("x = 1\n")
        for width in range(n % 3):
            (repo / f"w{width}").mkdir(exist_ok=True)
            (repo / f"w{width}" / "a.py").write_text("y = 2\n")
        extra = "".join(f"CONSTANT_{i} = {i}\n" for i in range((5 * n) % 11))
        (task / "golden_files" / "toy_golden.py").write_text(GOLDEN_SOURCE + extra)
    shutil.rmtree(folder / BROKEN / "toy-repo")
    return folder


def _outcomes() -> list[tuple[str, str, int, bool]]:
    """(model, task as results.txt spells it, implementation, passed) for every log."""
    chance = random.Random(5)
    found = []
    for _, model, _ in SYSTEMS:
        for name, count in [*TASKS, (GHOST, 1)]:
            number, short = name.split("-", 1)
            published = f"{int(number)}-{short}"  # results.txt says 1-T1, the folder 01-T1
            for index in range(1, count + 1):
                passed = chance.random() < 0.45 and (model, int(number)) != NO_LOGS
                found.append((model, published, index, passed))
    return found


def _write_results(root: Path, outcomes: list[tuple[str, str, int, bool]]) -> list[Path]:
    paths = []
    for agent, model, _ in SYSTEMS:
        mine = [o for o in outcomes if o[0] == model]
        lines = []
        for _, task, index, passed in mine:
            if (model, int(task.split("-")[0])) == NO_LOGS:
                lines.append(f"/home/someone/outputs/{agent}/{model}/{task}/r/unit_test/logs"
                             " is not a directory")  # fmt: skip
                continue
            bare = (model, int(task.split("-")[0])) == BARE_LOG
            log = f"{task}/unit_test{'' if bare else f'_{index}'}.log"
            lines.append(f"{log}: PASS" if passed else f"{log}: FAIL (found 2 failure lines)")
        total, good = len(mine), sum(o[3] for o in mine)
        lines += ["", f"Total log files: {total}", f"Passed files:    {good}",
                  f"Failed files:    {total - good}",
                  f"Overall pass rate: {good / total * 100:.2f}%"]  # fmt: skip
        path = root / "unit_test_evaluation" / agent / model / "results.txt"
        path.parent.mkdir(parents=True)
        path.write_text("\n".join(lines) + "\n")
        paths.append(path.parent)
    return paths


def test_published_regression_matches_statsmodels_and_lists_what_it_left_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    benchmark = _benchmark(tmp_path / "benchmark")
    outcomes = _outcomes()
    folders = _write_results(tmp_path / "results", outcomes)
    argv = ["report", "--no-human", "--benchmark", str(benchmark), "--regression"]
    for folder in folders:
        argv += ["--published-results", str(folder)]
    argv += ["--reference-system", "OpenHands/gpt4.1"]  # a published spelling
    assert main([*argv, "--format", "json"]) == 1  # the broken task is listed first
    captured = capsys.readouterr()
    assert captured.err.splitlines()[:2] == [
        "skipped 1 task(s) that cannot be loaded:",
        f"  {BROKEN}: the repository folder toy-repo/ is missing",
    ]
    fitted = json.loads(captured.out)["regression"]

    # The same table, built here from the outcomes written: the measured tasks only.
    metrics = {
        (folder.name.split("-")[0].lstrip("0"), m.index): m.predictors()
        for folder in sorted(benchmark.iterdir())
        if folder.name != BROKEN
        for m in implementation_metrics(load_task(folder))
    }
    kept = [o for o in outcomes if (o[1].split("-")[0], o[2]) in metrics]
    assert len(kept) == len(outcomes) - 2 * len(SYSTEMS)  # BROKEN and GHOST out
    raw = np.array([[metrics[(o[1].split("-")[0], o[2])][p] for p in PREDICTORS] for o in kept])
    z = (raw - raw.mean(axis=0)) / raw.std(axis=0)
    dummies = [[1.0 if o[0] == model else 0.0 for o in kept] for _, model, _ in SYSTEMS[1:]]
    design = np.column_stack([np.ones(len(kept)), z, *dummies])
    outcome = np.array([1.0 if o[3] else 0.0 for o in kept])
    direct = sm.Logit(outcome, design).fit(disp=0)

    names = ["const", *PREDICTORS, *(f"system[{s}]" for _, _, s in SYSTEMS[1:])]
    assert [c["name"] for c in fitted["coefficients"]] == names
    for i, row in enumerate(fitted["coefficients"]):
        assert row["coef"] == pytest.approx(direct.params[i], rel=1e-9, abs=1e-12)
        assert row["std_err"] == pytest.approx(direct.bse[i], rel=1e-9)
        assert row["z"] == pytest.approx(direct.tvalues[i], rel=1e-9, abs=1e-12)
        assert row["p"] == pytest.approx(direct.pvalues[i], rel=1e-9, abs=1e-15)
    assert fitted["n"] == len(kept) == 33
    assert fitted["pseudo_r2"] == pytest.approx(direct.prsquared)
    assert fitted["reference_system"] == "openhands_agent-gpt4.1"
    assert fitted["per_system"] == {s: 11 for _, _, s in SYSTEMS}
    left = {item["task"]: item for item in fitted["left_out"]}
    assert set(left) == {BROKEN, "12-Ghost"}
    assert left[BROKEN]["outcomes"] == left["12-Ghost"]["outcomes"] == len(SYSTEMS)
    assert left["12-Ghost"]["reason"] == "not a task of the benchmark"
    assert "cannot be loaded" in left[BROKEN]["reason"]

    assert main(argv) == 1
    text = capsys.readouterr().out
    assert "## Logistic regression of success (Table 5)" in text
    assert "| system[openhands_agent-o4mini] |" in text
    assert "n = 33 (" in text and "2 task(s) left out, listed below" in text
    listed = text.split("## Left out of the regression", 1)[1]
    assert f"- {BROKEN} (3 outcome(s)): it cannot be loaded" in listed
    assert "- 12-Ghost (3 outcome(s)): not a task of the benchmark" in listed


def test_published_regression_without_the_benchmark_says_which_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folders = _write_results(tmp_path / "results", _outcomes())
    argv = ["report", "--no-human", "--regression", "--published-results", str(folders[0])]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "--regression needs the benchmark" in err and "--benchmark DIR" in err
    assert "Traceback" not in err


def test_published_regression_on_tasks_the_benchmark_lacks_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = tmp_path / "other"
    write_task(other, "40-Elsewhere")
    folders = _write_results(tmp_path / "results", _outcomes())
    argv = ["report", "--no-human", "--regression", "--benchmark", str(other)]
    assert main([*argv, "--published-results", str(folders[0])]) == 2
    err = capsys.readouterr().err
    assert "no runs to fit the regression on (12 task(s) left out)" in err
    assert "--benchmark DIR" in err and "Traceback" not in err
