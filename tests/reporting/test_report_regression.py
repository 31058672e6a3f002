"""`report --regression` fits Table 5 on the success table of the eval outputs; the
coefficients equal statsmodels run directly on the same table."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest
import statsmodels.api as sm

from lmr_author.cli import main
from lmr_author.domain.benchmark import load_benchmark
from lmr_author.reporting.repo_metrics import implementation_metrics
from tests.support.eval_output import GOLDEN_SOURCE, RunSpec, build_eval_output

TASKS = [f"{n:02d}-Toy" for n in range(1, 9)]
SYSTEMS = ("gpt-4.1", "gpt-4o", "o4-mini")
PREDICTORS = ("avg_dir_depth", "avg_branch_factor", "directory_imbalance", "goal_function_length")


def _shape(benchmark: Path) -> None:
    """Give every task its own tree and golden-file length, so the predictors vary."""
    for n, name in enumerate(TASKS):
        repo = benchmark / name / "toy-repo"
        for depth in range(n % 4):
            folder = repo.joinpath(*[f"d{i}" for i in range(depth + 1)])
            folder.mkdir(parents=True, exist_ok=True)
            (folder / "m.py").write_text("x = 1\n")
        for width in range(n % 3):
            (repo / f"w{width}").mkdir(exist_ok=True)
            (repo / f"w{width}" / "a.py").write_text("y = 2\n")
        extra = "".join(f"CONSTANT_{i} = {i}\n" for i in range(3 * n))
        (benchmark / name / "golden_files" / "toy_golden.py").write_text(GOLDEN_SOURCE + extra)


def test_regression_matches_statsmodels_on_the_same_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    chance = random.Random(7)
    specs = [
        RunSpec(system, task, 1, "pass" if chance.random() < 0.5 else "fail")
        for system in SYSTEMS
        for task in TASKS
    ]
    out = build_eval_output(tmp_path, specs)
    benchmark = tmp_path / "benchmark"
    _shape(benchmark)
    argv = ["report", str(out), "--regression", "--reference-system", "gpt-4.1"]
    assert main([*argv, "--no-human", "--format", "json"]) == 0
    fitted = json.loads(capsys.readouterr().out)["regression"]

    # the same table, built here: success from the runs, metrics from the task folders
    metrics = {
        m.task: m.predictors()
        for t in load_benchmark(benchmark, runnable=False).tasks
        for m in implementation_metrics(t)
    }
    raw = np.array([[metrics[s.task][p] for p in PREDICTORS] for s in specs])
    z = (raw - raw.mean(axis=0)) / raw.std(axis=0)
    dummies = [[1.0 if s.system == other else 0.0 for s in specs] for other in SYSTEMS[1:]]
    design = np.column_stack([np.ones(len(specs)), z, *dummies])
    outcome = np.array([1.0 if s.verdict == "pass" else 0.0 for s in specs])
    direct = sm.Logit(outcome, design).fit(disp=0)

    names = ["const", *PREDICTORS, "system[gpt-4o]", "system[o4-mini]"]
    assert [c["name"] for c in fitted["coefficients"]] == names
    for i, row in enumerate(fitted["coefficients"]):
        assert row["coef"] == pytest.approx(direct.params[i], rel=1e-9, abs=1e-12)
        assert row["std_err"] == pytest.approx(direct.bse[i], rel=1e-9)
        assert row["p"] == pytest.approx(direct.pvalues[i], rel=1e-9, abs=1e-15)
    assert fitted["n"] == len(specs) == 24
    assert fitted["pseudo_r2"] == pytest.approx(direct.prsquared)

    assert main([*argv, "--no-human"]) == 0
    text = capsys.readouterr().out
    assert "## Logistic regression of success (Table 5)" in text
    assert "| avg_dir_depth |" in text and "reference system: gpt-4.1" in text


def _results_txt(folder: Path, outcomes: dict[str, bool], *, no_logs: str = "") -> Path:
    """A published results.txt (get_statistics.py's shape) with the tasks' paper spelling
    (``1-Toy``); ``no_logs`` is a task whose logs folder was missing (a failure)."""
    lines = []
    for task, passed in outcomes.items():
        spelt = task.lstrip("0")
        if task == no_logs:
            lines.append(f"/home/someone/out/{spelt}/toy-repo/unit_test/logs is not a directory")
        else:
            lines.append(
                f"{spelt}/unit_test_1.log: "
                + ("PASS" if passed else "FAIL (found 1 failure lines)")
            )
    passed_n = sum(outcomes.values()) - (1 if no_logs and outcomes[no_logs] else 0)
    lines += ["", f"Total log files: {len(outcomes)}", f"Passed files:    {passed_n}"]
    lines += [f"Failed files:    {len(outcomes) - passed_n}"]
    lines += [f"Overall pass rate: {passed_n / len(outcomes) * 100:.2f}%"]
    folder.mkdir(parents=True)
    (folder / "results.txt").write_text("\n".join(lines) + "\n")
    return folder / "results.txt"


def test_regression_on_published_results_matches_statsmodels(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    chance = random.Random(11)
    build_eval_output(tmp_path, [RunSpec("unused", task, 1, "pass") for task in TASKS])
    benchmark = tmp_path / "benchmark"
    _shape(benchmark)
    published = {
        "openhands_agent-gpt4o": ("OpenHands", "gpt4o"),
        "openhands_agent-o4mini": ("OpenHands", "o4mini"),
        "no_agent-gpt4.1": ("BaseAgent", "gpt4.1"),
    }
    outcomes = {system: {task: chance.random() < 0.5 for task in TASKS} for system in published}
    # A task without logs is a failure, as the published statistics count it.
    outcomes["no_agent-gpt4.1"]["03-Toy"] = False
    files = [
        _results_txt(
            tmp_path / "results" / "unit_test_evaluation" / agent / model,
            outcomes[system],
            no_logs="03-Toy" if system == "no_agent-gpt4.1" else "",
        )
        for system, (agent, model) in published.items()
    ]
    argv = ["report", "--benchmark", str(benchmark), "--regression", "--no-human"]
    for path in files:
        argv += ["--published-results", str(path)]
    argv += ["--reference-system", "no_agent-gpt4.1", "--format", "json"]
    assert main(argv) == 0
    fitted = json.loads(capsys.readouterr().out)["regression"]

    metrics = {
        m.task: m.predictors()
        for t in load_benchmark(benchmark, runnable=False).tasks
        for m in implementation_metrics(t)
    }
    table = [(system, task, ok) for system, row in outcomes.items() for task, ok in row.items()]
    raw = np.array([[metrics[task][p] for p in PREDICTORS] for _, task, _ in table])
    z = (raw - raw.mean(axis=0)) / raw.std(axis=0)
    others = ["openhands_agent-gpt4o", "openhands_agent-o4mini"]
    dummies = [[1.0 if system == other else 0.0 for system, _, _ in table] for other in others]
    design = np.column_stack([np.ones(len(table)), z, *dummies])
    direct = sm.Logit(np.array([1.0 if ok else 0.0 for *_, ok in table]), design).fit(disp=0)

    names = ["const", *PREDICTORS, *(f"system[{other}]" for other in others)]
    assert [c["name"] for c in fitted["coefficients"]] == names
    for i, row in enumerate(fitted["coefficients"]):
        assert row["coef"] == pytest.approx(direct.params[i], rel=1e-9, abs=1e-12)
        assert row["std_err"] == pytest.approx(direct.bse[i], rel=1e-9)
    assert fitted["n"] == len(table) == 3 * len(TASKS)
