"""One set of runs, one accuracy: every command that prints unit-test accuracy agrees.

The runs hold every kind of verdict: passes, a fail, an error, a timeout, an
infrastructure error and a run that was "not runnable here" (recorded as an infra-error).
The last two say nothing about the candidate, so every command leaves them out:
``mixed`` is 2 passed of 5 counted (40 %, not 2 of 7), ``lucky`` 1 of 1 (100 %, not 50 %).
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from rich.console import Console

from lmr_author.cli import main
from lmr_author.domain.scoring import LabelCounts, SystemScore, Tally, score_runs
from lmr_author.eval_output import candidate_sha256, load_runs
from lmr_author.eval_output.results import build_results, load_results, save_results
from lmr_author.labels import Label, LabelStore
from tests.support.eval_output import RunSpec, build_eval_output, candidate_source
from tests.support.openai_server import OpenAIServer, Reply

NOT_RUNNABLE = "not runnable here: needs a GPU (the golden code fails with 'no CUDA')."
VERDICTS = {
    "mixed": [
        ("pass", ""),
        ("pass", ""),
        ("fail", "1 test failed"),
        ("error", "NameError"),
        ("timeout", "killed after 60 s"),
        ("infra-error", "the container could not start"),
        ("infra-error", NOT_RUNNABLE),
    ],
    "lucky": [("pass", ""), ("infra-error", "image pull failed")],
}
#: What every command must print: passed of counted, and the percentage.
EXPECTED = {"mixed": (2, 5, 40.0), "lucky": (1, 1, 100.0)}


def _specs() -> list[RunSpec]:
    return [
        RunSpec(system, implementation=i, verdict=verdict, reason=reason)
        for system, runs in VERDICTS.items()
        for i, (verdict, reason) in enumerate(runs, start=1)
    ]


@pytest.fixture
def output(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL"):
        monkeypatch.delenv(name, raising=False)
    out = build_eval_output(tmp_path, _specs())
    save_results(out, build_results(out, str(tmp_path / "benchmark")))  # as eval ends
    return out


def _row(text: str, system: str) -> str:
    """The first line of ``text`` that starts with ``system``: its row of the first table."""
    row = re.compile(rf"[|│ ]*{system}\b")
    return next(line for line in text.splitlines() if row.match(line))


def test_every_command_prints_the_same_accuracy(
    output: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from lmr_author.commands._render_results import print_summary

    found: dict[str, dict[str, float]] = {name: {} for name in EXPECTED}

    # eval: results.json, and the summary it prints
    stored = json.loads((output / "results.json").read_text())["systems"]
    console = Console(width=200, file=io.StringIO(), color_system=None, record=True)
    print_summary(load_results(output), output, console)
    summary = console.export_text()
    for system, (passed, counted, _) in EXPECTED.items():
        assert (stored[system]["passed"], stored[system]["implementations"]) == (passed, counted)
        found[system]["results.json"] = 100.0 * stored[system]["accuracy"]
        assert f" {passed}/{counted} " in _row(summary, system)
        found[system]["eval summary"] = float(re.findall(r"(\d+\.\d)%", _row(summary, system))[0])

    # judge: its JSON and its table
    with OpenAIServer(lambda request: Reply.answer(3)) as server:
        judge = ["judge", str(output), "--base-url", server.base_url]
        assert main([*judge, "--json"]) == 0
        judged = json.loads(capsys.readouterr().out)["systems"]
        assert main(judge) == 0
        table = capsys.readouterr().out
    for system, (passed, counted, _) in EXPECTED.items():
        assert (judged[system]["passed"], judged[system]["counted"]) == (passed, counted)
        found[system]["judge"] = judged[system]["unit_test_accuracy"]
        found[system]["judge table"] = float(re.findall(r"(\d+\.\d)%", _row(table, system))[0])

    # human labels of every run, for the report and the agreement
    store = tmp_path / "labels.sqlite"
    with LabelStore(store) as labels:
        for spec in _specs():
            candidate = candidate_source(f"{spec.system}/{spec.task}").encode()
            labels.add(
                Label(
                    "ann",
                    spec.system,
                    spec.task,
                    spec.implementation,
                    3,
                    candidate_sha256=candidate_sha256(candidate),
                )
            )

    # report: its JSON and its Markdown
    assert main(["report", str(output), "--human", str(store), "--format", "json"]) == 0
    rows = {row["system"]: row for row in json.loads(capsys.readouterr().out)["systems"]}
    assert main(["report", str(output), "--human", str(store)]) == 0
    markdown = capsys.readouterr().out
    table_2 = markdown[markdown.index("Table 2") :]
    for system, (passed, counted, _) in EXPECTED.items():
        unit = rows[system]["unit_tests"]
        assert (unit["passed"], unit["counted"]) == (passed, counted)
        found[system]["report"] = unit["percent"]
        cells = [cell.strip() for cell in _row(table_2, system).split("|")]
        found[system]["report table"] = float(
            next(c for c in cells if re.fullmatch(r"\d+\.\d+", c))
        )

    # agreement: its JSON and its Markdown
    agreement = ["agreement", "--human", str(store), "--judge", str(output), "--bootstrap", "0"]
    main([*agreement, "--json"])
    distribution = json.loads(capsys.readouterr().out)["distribution"]
    main([*agreement, "--markdown"])
    per_system = capsys.readouterr().out
    per_system = per_system[per_system.index("Per system") :]
    for row in distribution:
        passed, counted, _ = EXPECTED[row["system"]]
        assert (row["unit_test"]["passed"], row["unit_test"]["runs"]) == (passed, counted)
        found[row["system"]]["agreement"] = row["unit_test"]["accuracy_percent"]
        cells = [cell.strip() for cell in _row(per_system, row["system"]).split("|")]
        found[row["system"]]["agreement table"] = float(cells[2])

    for system, (_, _, percent) in EXPECTED.items():
        assert len(found[system]) == 8, found[system]
        assert {name: round(value, 1) for name, value in found[system].items()} == dict.fromkeys(
            found[system], percent
        ), system


def test_infra_errors_and_not_runnable_runs_are_listed_not_counted(output: Path) -> None:
    mixed = score_runs(load_runs(output))["mixed"]
    assert (mixed.runs, mixed.unit_tests.counted, mixed.unit_tests.passed) == (7, 5, 2)
    assert [error["reason"] for error in mixed.infra_errors] == [
        "the container could not start",
        NOT_RUNNABLE,
    ]
    assert mixed.verdicts == {"pass": 2, "fail": 1, "error": 1, "timeout": 1, "infra-error": 2}
    assert mixed.categories["Evaluation Metrics"] == Tally(5, 2)


def test_a_verdict_nobody_knows_counts_as_a_failure() -> None:
    score = SystemScore("s")
    for verdict in ("pass", "weird"):
        score.unit_tests.add(verdict)
    assert (score.unit_tests.counted, score.unit_tests.passed) == (2, 1)


def test_label_counts_read_every_spelling_and_keep_unreadable_answers_in_the_total() -> None:
    counts = LabelCounts()
    for label in (3, "CC", "lc", 1, None, "unparsed", 7):
        counts.add(label)
    assert counts.counts == {"CC": 2, "LC": 1, "LI": 1}
    assert (counts.unparsed, counts.total) == (3, 7)
    assert counts.percent("CC") == pytest.approx(100 * 2 / 7)
    assert counts.not_cc_percent == pytest.approx(100 * 5 / 7)
    assert LabelCounts().fraction("CC") is None and LabelCounts().not_cc_percent is None
