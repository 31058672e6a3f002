"""`lmr-author report`: every number is recomputed here from results.json, the judgment
files and the label store as stored (raw JSON and SQL, not through the report's code)."""

from __future__ import annotations

import json
import math
import sqlite3
from collections import Counter
from pathlib import Path

import pytest

from lmr_author.cli import main
from lmr_author.domain.three_way import short_name
from lmr_author.eval_output import RESULTS_FILE
from lmr_author.eval_output.results import build_results, save_results
from lmr_author.judge.store import Judgment, save_judgment
from lmr_author.labels import Label, LabelStore
from tests.support.eval_output import RunSpec, build_eval_output, candidate_source

#: The published shape (reference/formats/unit-test-results-example.txt).
PUBLISHED = """\
1-DPO/unit_test_1.log: FAIL (found 2 failure lines)
11-moverscore/unit_test_1.log: FAIL (found 0 failure lines)
13-DecBound/unit_test_1.log: PASS
16-KnowProb/unit_test_1.log: FAIL (found 1 failure lines)
16-KnowProb/unit_test_2.log: PASS
2-HITs/unit_test_1.log: PASS

Total log files: 6
Passed files:    3
Failed files:    3
Overall pass rate: 50.00%
"""
TASKS = ("01-Toy", "02-Toy", "03-Toy")


def _runs() -> list[RunSpec]:
    verdicts = {
        "alpha": ["pass", "fail", "pass", "error", "pass", "infra-error"],
        "beta": ["fail", "fail", "pass", "timeout", "fail", "pass"],
    }
    specs = []
    for system, pattern in verdicts.items():
        slots = [(task, index) for task in TASKS for index in (1, 2)]
        for (task, index), verdict in zip(slots, pattern, strict=True):
            specs.append(RunSpec(system, task, index, verdict))
    return specs


@pytest.fixture
def evaluated(tmp_path: Path) -> tuple[Path, Path]:
    """An eval output with results.json, judgments (one stale, one unparsed) and labels."""
    out = build_eval_output(tmp_path, _runs(), tasks=dict.fromkeys(TASKS, 2))
    results = build_results(out, str(tmp_path / "benchmark"))
    save_results(out, results)
    categories = [3, 2, 1, None, 3, 1, 1, 2, 3, 1, 3, 2]
    for run, category in zip(results.runs, categories, strict=True):
        digest = run.candidate_sha256 or ""
        if (run.system, run.task, run.implementation) == ("beta", "03-Toy", 2):
            digest = "0" * 64  # judged other code: stale, not counted
        save_judgment(
            out,
            Judgment(
                system=run.system, task=run.task, implementation=run.implementation,
                candidate_sha256=digest, category=category, label=short_name(category),
                rationale=[], raw="", model="m", endpoint="e", scope="function",
                prompt_sha256="",
            ),
        )  # fmt: skip
    store = tmp_path / "labels.sqlite"
    with LabelStore(store) as labels:
        for run, value in zip(results.runs, [3, 3, 2, 1, 3, 1, 2, 1, 3, 3, 1, 2], strict=True):
            for annotator in ("ann", "bob"):
                labels.add(
                    Label(
                        annotator,
                        run.system,
                        run.task,
                        run.implementation,
                        value if annotator == "ann" else max(1, value - 1),
                        candidate_sha256=run.candidate_sha256 or "",
                    )
                )
        # a later, stale label of other code: not counted, the earlier one is superseded
        labels.add(Label("bob", "alpha", "01-Toy", 1, 1, candidate_sha256="f" * 64))
    return out, store


def _report(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:  # type: ignore[type-arg]
    assert main(["report", *argv, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def test_report_numbers_equal_results_json_judgments_and_labels(
    evaluated: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    out, store = evaluated
    report = _report(capsys, str(out), "--human", str(store))
    rows = {row["system"]: row for row in report["systems"]}

    # unit tests: results.json as stored
    stored = json.loads((out / RESULTS_FILE).read_text())
    for system, summary in stored["systems"].items():
        unit = rows[system]["unit_tests"]
        assert (unit["passed"], unit["counted"]) == (summary["passed"], summary["implementations"])
        assert unit["percent"] == round(100 * summary["accuracy"], 2)
        for category, numbers in summary["categories"].items():
            mine = rows[system]["categories"][category]
            assert (mine["passed"], mine["counted"]) == (
                numbers["passed"],
                numbers["implementations"],
            )

    # judge: the judgment files, counted when they judged the run's candidate
    runs = {(r["system"], r["task"], r["implementation"]): r for r in stored["runs"]}
    expected: dict[str, Counter[str]] = {"alpha": Counter(), "beta": Counter()}
    for path in (out / "judgments").glob("*/*/*.json"):
        data = json.loads(path.read_text())
        run = runs[(data["system"], data["task"], data["implementation"])]
        if data["candidate_sha256"] == run["candidate_sha256"]:
            expected[data["system"]][short_name(data["category"])] += 1
    for system, counts in expected.items():
        judge = rows[system]["judge"]
        assert judge["counts"] == {k: counts[k] for k in ("CC", "LC", "LI")}
        assert judge["total"] == sum(counts.values())
        assert judge["percent"]["CC"] == round(100 * counts["CC"] / sum(counts.values()), 2)
    assert rows["beta"]["judge"]["total"] == 5  # the stale judgment is not counted
    assert rows["alpha"]["judge"]["unparsed"] == 1

    # humans: the latest label of each annotator and run, in the store's own table
    with sqlite3.connect(store) as db:
        latest = db.execute(
            "SELECT system, task, implementation, label, candidate_sha256 FROM labels "
            "WHERE id IN (SELECT MAX(id) FROM labels GROUP BY annotator, system, task, "
            "implementation)"
        ).fetchall()
    human: dict[str, Counter[str]] = {"alpha": Counter(), "beta": Counter()}
    for system, task, index, value, digest in latest:
        if digest == runs[(system, task, index)]["candidate_sha256"]:
            human[system][short_name(value)] += 1
    for system, counts in human.items():
        assert rows[system]["human"]["counts"] == {k: counts[k] for k in ("CC", "LC", "LI")}
        cc = rows[system]["human"]["percent"]["CC"]
        assert cc == round(100 * counts["CC"] / sum(counts.values()), 2)
    assert rows["alpha"]["human"]["total"] == 11  # bob's stale relabel is left out
    assert any("stale human label of bob" in note for note in report["notes"])
    # Figure 2 is over the paper's nine categories, empty ones included.
    assert report["category_distribution"]["Evaluation Metrics"] == 6
    assert len(report["category_distribution"]) == 9
    assert sum(report["category_distribution"].values()) == 6


def test_markdown_and_html_pages_are_written(
    evaluated: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, store = evaluated
    target, site = tmp_path / "report.md", tmp_path / "site"
    argv = ["report", str(out), "--human", str(store), "-o", str(target), "--html", str(site)]
    assert main(argv) == 0
    text = target.read_text()
    assert "## Table 2: unit tests, LLM judge and human labels (%)" in text
    assert "| alpha | – | 60.0 | 5 |" in text  # 3 of 5 counted runs (infra-error left out)
    assert "## Table 6: completely correct vs not (%)" in text
    page = (site / "index.html").read_text()
    assert "<table>" in page and 'src="accuracy.svg"' in page
    for stem in ("accuracy", "labels", "categories"):
        assert (site / f"{stem}.png").read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
        assert b"<svg" in (site / f"{stem}.svg").read_bytes()


def test_settings_side_by_side_and_published_results(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    full = build_eval_output(tmp_path / "a", [RunSpec("gpt", "01-Toy", 1, "pass")])
    paper = build_eval_output(tmp_path / "b", [RunSpec("gpt", "01-Toy", 1, "fail")])
    published = tmp_path / "results.txt"
    published.write_text(PUBLISHED)
    report = _report(
        capsys, "--setting", f"full={full}", "--setting", f"paper-only={paper}",
        "--published-results", f"OpenHands-gpt={published}", "--no-human",
    )  # fmt: skip
    rows = [(r["setting"], r["system"], r["unit_tests"]["percent"]) for r in report["systems"]]
    # A published folder spelling names its system through the one identity.
    assert rows == [
        ("full", "gpt", 100.0),
        ("paper-only", "gpt", 0.0),
        ("", "openhands_agent-gpt", 50.0),
    ]
    assert (
        main(["report", "--setting", f"full={full}", "--setting", f"p={paper}", "--no-human"]) == 0
    )
    assert "## Table 3: settings side by side (%)" in capsys.readouterr().out
    # the same system in two outputs without settings is ambiguous
    assert main(["report", str(full), str(paper), "--no-human"]) == 2


def test_pass_at_k_of_sampled_systems(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    passes = {("01-Toy", 1): [True, False, False, True], ("02-Toy", 1): [False] * 4,
              ("03-Toy", 1): [True, True, True, False]}  # fmt: skip
    specs = [
        RunSpec(f"gen+s{k + 1}", task, index, "pass" if ok else "fail",
                candidate_source(f"{task}{k}"))
        for (task, index), results in passes.items()
        for k, ok in enumerate(results)
    ]  # fmt: skip
    out = build_eval_output(tmp_path, specs)
    report = _report(capsys, str(out), "--no-human", "--k", "2")
    (found,) = report["pass_at_k"]
    assert (found["system"], found["items"], found["samples"]) == ("gen", 3, 4)

    def unbiased(n: int, c: int, k: int) -> float:
        return 1.0 - math.comb(n - c, k) / math.comb(n, k)

    for k in (1, 2, 4):
        want = sum(unbiased(4, sum(r), k) for r in passes.values()) / 3
        assert found["pass_at_k"][str(k)] == pytest.approx(want, abs=1e-12)


def test_bad_inputs_are_user_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report"]) == 2
    assert main(["report", str(tmp_path)]) == 2  # no runs
    bad = tmp_path / "results.txt"
    bad.write_text("garbage\n")
    assert main(["report", "--published-results", str(bad)]) == 2
    assert "line 1" in capsys.readouterr().err


def test_published_label_files_name_tasks_by_paper_index(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    specs = [RunSpec("no_agent-gpt4o", "01-Toy", 1, "pass"),
             RunSpec("no_agent-gpt4o", "02-Toy", 1, "fail")]  # fmt: skip
    out = build_eval_output(tmp_path, specs)
    labels = tmp_path / "labels.json"
    labels.write_text(
        json.dumps(
            [
                {"annotator": "Shuo", "agent_type": "no_agent", "model_name": "gpt4o",
                 "paper_index": index, "function_index": 0, "human_judge_result": value,
                 "comment": ""}
                for index, value in ((1, 3), (2, 1))
            ]
        )
    )  # fmt: skip
    report = _report(capsys, str(out), "--human", str(labels))
    (row,) = report["systems"]
    assert row["human"]["counts"] == {"CC": 1, "LC": 0, "LI": 1}


def test_without_matplotlib_the_page_is_written_and_says_how_to_get_plots(
    evaluated: tuple[Path, Path], tmp_path: Path
) -> None:
    """matplotlib is the optional ``report`` extra: a process that cannot import it
    still writes the tables, and the page and the terminal name the extra."""
    import subprocess
    import sys

    out, store = evaluated
    site = tmp_path / "bare"
    code = (
        "import sys; sys.modules['matplotlib'] = None\n"
        "from lmr_author.cli import main\n"
        f"sys.exit(main(['report', {str(out)!r}, '--human', {str(store)!r}, "
        f"'-o', {str(tmp_path / 'r.md')!r}, '--html', {str(site)!r}]))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "pip install 'lmr-author[report]'" in done.stderr
    page = (site / "index.html").read_text()
    assert "<table>" in page and "lmr-author[report]" in page and "<img" not in page
    assert not list(site.glob("*.png"))
