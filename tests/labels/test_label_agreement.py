"""The agreement report on a small eval output, checked against numbers worked by hand.

The data (agreement_fixtures.py), one system, items i1..i7:

    item               judge  ann  bob   run
    i1 01-DPO/1          3     3    3    pass
    i2 01-DPO/2          1     1    2    fail
    i3 05-SimPO/1        3     2    2    pass
    i4 16-KnowProb/1     2     2    2    fail
    i5 16-KnowProb/2     1     3    3    fail
    i6 16-KnowProb/3     -     1   (3)   fail   judge unparsed; bob's label is stale
    i7 05-SimPO/2        1     -    -    fail   no human label

bob's labels come from a published-shape file (paper_index 1 -> 01-DPO, function_index
0 -> implementation 1), ann's from a label store with candidate hashes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lmr_author.cli import main
from lmr_author.commands._render_agreement import to_markdown
from lmr_author.labels.agreement import JUDGE, Options, analyze
from lmr_author.labels.agreement_report import AgreementReport
from lmr_author.labels.report import sections
from lmr_author.labels.sources import load_human_labels, load_judge_source
from tests.labels.agreement_fixtures import (
    SYSTEM,
    write_bob_file,
    write_eval_output,
    write_store,
)


@pytest.fixture
def agreement(tmp_path: Path) -> AgreementReport:
    out = write_eval_output(tmp_path)
    store = write_store(tmp_path / "labels.sqlite")
    bob = write_bob_file(tmp_path / "bob.json")
    labels, _ = load_human_labels([store, bob])
    return analyze(labels, load_judge_source(out), options=Options(bootstrap=200, seed=1))


@pytest.fixture
def report(agreement: AgreementReport) -> dict[str, Any]:
    """The report's JSON, as ``agreement --json`` prints it."""
    return agreement.to_json()


def test_the_typed_report_and_its_json_say_the_same(
    agreement: AgreementReport, report: dict[str, Any]
) -> None:
    versus = agreement.three_way.judge_vs_human
    assert versus is not None
    assert report["three_way"]["judge_vs_human"]["pairs"] == versus.pairs == versus.pooled.n
    assert versus.pooled.percent_agreement.value == pytest.approx(0.5)
    assert versus.pooled.direct_conflict_rate is not None
    assert agreement.binary.judge_vs_human is not None
    assert agreement.binary.judge_vs_human.pooled.direct_conflict_rate is None
    assert "direct_conflict_rate" not in report["binary"]["judge_vs_human"]
    assert [row.annotator for row in versus.per_annotator] == ["ann", "bob"]
    assert set(agreement.three_way.between_annotators.groups) == {"humans", "humans_and_judge"}
    assert [x.rater for x in agreement.stale] == [x["rater"] for x in report["stale"]]


def test_distribution_is_the_table_2_layout(report: dict) -> None:
    (row,) = report["distribution"]
    assert row["system"] == SYSTEM
    # 7 runs, 2 pass.
    assert row["unit_test"]["accuracy_percent"] == pytest.approx(200 / 7)
    # judge counts i1..i5 and i7: CC 2, LC 1, LI 3 (i6 unparsed).
    assert row["judge"]["counts"] == {"CC": 2, "LC": 1, "LI": 3}
    assert row["judge"]["percent"]["CC"] == pytest.approx(100 * 2 / 6)
    # humans pooled: ann 3,1,2,2,3,1 and bob 3,2,2,2,3 -> CC 4, LC 5, LI 2 of 11.
    assert row["human"]["counts"] == {"CC": 4, "LC": 5, "LI": 2}
    assert row["human"]["percent"]["LC"] == pytest.approx(100 * 5 / 11)
    # the judge-human pairs of the system: 5 equal of 10, 2 direct conflicts.
    assert row["judge_vs_human"] == {
        "pairs": 10,
        "percent_agreement": 0.5,
        "direct_conflict_rate": 0.2,
    }


def test_judge_vs_human_by_hand(report: dict) -> None:
    jh = report["three_way"]["judge_vs_human"]
    # Pairs (judge, human): i1 (3,3)(3,3) i2 (1,1)(1,2) i3 (3,2)(3,2) i4 (2,2)(2,2)
    # i5 (1,3)(1,3): 5 equal of 10; 2 direct conflicts of 10.
    assert (jh["pairs"], jh["items"]) == (10, 5)
    assert jh["percent_agreement"]["value"] == pytest.approx(0.5)
    assert jh["direct_conflict_rate"]["value"] == pytest.approx(0.2)
    assert jh["confusion"] == [[1, 1, 2], [0, 2, 0], [0, 2, 2]]
    # Rows 4,2,4, columns 1,5,4: p_e = (4 + 10 + 16)/100 = 0.3; kappa = 0.2/0.7.
    assert jh["cohen_kappa"]["value"] == pytest.approx(2 / 7)
    low, high = jh["percent_agreement"]["ci"]
    assert 0.0 <= low <= 0.5 <= high <= 1.0
    per = {x["annotator"]: x for x in jh["per_annotator"]}
    assert per["ann"]["percent_agreement"]["value"] == pytest.approx(3 / 5)
    assert per["bob"]["percent_agreement"]["value"] == pytest.approx(2 / 5)
    assert per["bob"]["direct_conflict_rate"]["value"] == pytest.approx(1 / 5)


def test_between_annotators_by_hand(report: dict) -> None:
    between = report["three_way"]["between_annotators"]
    (pair,) = between["pairwise"]
    assert pair["annotators"] == ["ann", "bob"]
    # ann vs bob on i1..i5: (3,3) (1,2) (2,2) (2,2) (3,3): 4 of 5 agree.
    # Rows (ann) 1,2,2; columns (bob) 0,3,2: p_e = (0 + 6 + 4)/25 = 0.4;
    # kappa = (0.8 - 0.4)/0.6 = 2/3.
    # Linear: D_o = 0.5/5 = 0.1; D_e = (1*3*.5 + 1*2*1 + 2*2*.5 + 2*3*.5)/25 = 8.5/25;
    # kappa_w = 1 - 0.1/0.34 = 24/34.
    assert pair["percent_agreement"]["value"] == pytest.approx(0.8)
    assert pair["cohen_kappa"]["value"] == pytest.approx(2 / 3)
    assert pair["cohen_kappa_linear"]["value"] == pytest.approx(24 / 34)
    assert pair["confusion"] == [[0, 1, 0], [0, 2, 0], [0, 0, 2]]
    # Fleiss over the 5 items both labelled: P_i = 1,0,1,1,1 -> 0.8; p = (.1, .5, .4) ->
    # P_e = .42; kappa = .38/.58 = 19/29. i6 (ann only) is left out.
    fleiss = between["fleiss_kappa_humans"]
    assert fleiss["value"] == pytest.approx(19 / 29)
    assert (fleiss["items"], fleiss["items_left_out"]) == (5, 1)
    # Krippendorff ordinal: n1=1, n2=5, n3=4; o12=o21=1. d12 = 3^2 = 9,
    # d23 = 4.5^2 = 20.25, d13 = 7.5^2 = 56.25. D_o = 2*9/10 = 1.8;
    # D_e = 2*(1*5*9 + 5*4*20.25 + 1*4*56.25)/90 = 15; alpha = 1 - 1.8/15 = 0.88.
    alpha = between["krippendorff_alpha_humans"]
    assert alpha["value"] == pytest.approx(0.88)
    assert alpha["level"] == "ordinal"
    assert between["krippendorff_alpha_humans_and_judge"]["value"] is not None


def test_binary_collapse_by_hand(report: dict) -> None:
    jh = report["binary"]["judge_vs_human"]
    # CC=1 / not=0 pairs: i1 (1,1)x2, i2 (0,0)x2, i3 (1,0)x2, i4 (0,0)x2, i5 (0,1)x2.
    assert jh["percent_agreement"]["value"] == pytest.approx(0.6)
    assert "direct_conflict_rate" not in jh
    assert jh["confusion"] == [[4, 2], [2, 2]]
    assert report["binary"]["between_annotators"]["krippendorff_alpha_humans"]["level"] == (
        "nominal"
    )


def test_nothing_is_dropped_silently(report: dict) -> None:
    disagreements = {(x["task"], x["implementation"]): x for x in report["disagreements"]}
    assert set(disagreements) == {("01-DPO", 2), ("05-SimPO", 1), ("16-KnowProb", 2)}
    conflict = disagreements[("16-KnowProb", 2)]
    assert conflict["direct_conflict"] and conflict["ratings"] == {
        JUDGE: "LI",
        "ann": "CC",
        "bob": "CC",
    }
    assert conflict["comments"] == {"ann": "c3"}
    assert disagreements[("01-DPO", 2)]["between_humans"]
    # Only the item no human labelled is missing; bob not labelling an item ann labelled
    # (16-KnowProb 3 counts only ann's label, bob's is stale) is not "missing".
    (missing,) = report["missing"]
    assert (missing["task"], missing["implementation"]) == ("05-SimPO", 2)
    assert missing["missing_from"] == ["humans"]
    (stale,) = report["stale"]
    assert (stale["rater"], stale["task"], stale["implementation"]) == ("bob", "16-KnowProb", 3)
    (unparsed,) = report["unparsed"]
    assert (unparsed["task"], unparsed["implementation"]) == ("16-KnowProb", 3)
    assert report["inputs"]["human_labels_without_hash"] == 5


def test_bootstrap_is_reproducible(tmp_path: Path) -> None:
    out = write_eval_output(tmp_path)
    labels, _ = load_human_labels([write_store(tmp_path / "s.sqlite")])
    judge = load_judge_source(out)
    first = analyze(labels, judge, options=Options(bootstrap=100, seed=3)).to_json()
    again = analyze(labels, judge, options=Options(bootstrap=100, seed=3)).to_json()
    none = analyze(labels, judge, options=Options(bootstrap=0)).to_json()
    assert json.dumps(first) == json.dumps(again)
    assert none["three_way"]["judge_vs_human"]["percent_agreement"]["ci"] is None


def test_report_renders_every_section(agreement: AgreementReport) -> None:
    markdown = to_markdown(agreement)
    for title in ("Per system", "Agreement, three-way", "Agreement, CC vs not", "Disagreements"):
        assert title in markdown
    assert "| no_agent-gpt4o | 28.6 | 33.3 |" in markdown
    # One table per view: the judge against the humans and the humans among them.
    assert len(sections(agreement, limit=1)) >= 6


def test_published_judge_outputs_match_published_labels(tmp_path: Path) -> None:
    judges = tmp_path / "published"
    for agent, model, name, category in [
        ("BaseAgent", "gpt4o", "1-DPO_direct_preference_0", "3"),
        ("OpenHands", "o4mini", "1-DPO_direct_preference_1", "2"),
        ("OpenHands", "o4mini", "12-Foo_foo-repo_0", "1"),
    ]:
        folder = judges / agent / model
        folder.mkdir(parents=True, exist_ok=True)
        body = json.dumps({"category": category, "rationale": ["r"]})
        (folder / f"{name}_analysis.txt").write_text(f"```json\n{body}\n```")
    labels_file = tmp_path / "human.json"
    labels_file.write_text(
        json.dumps(
            [
                {
                    "annotator": "Shuo",
                    "agent_type": agent,
                    "model_name": model,
                    "paper_index": paper,
                    "function_index": function,
                    "human_judge_result": value,
                    "comment": "",
                }
                for agent, model, paper, function, value in [
                    ("no_agent", "gpt4o", 1, 0, 3),
                    ("openhands_agent", "o4mini", 1, 1, 2),
                    ("openhands_agent", "o4mini", 12, 0, 3),
                ]
            ]
        )
    )
    labels, _ = load_human_labels([labels_file])
    report = analyze(labels, load_judge_source(judges), options=Options(bootstrap=0)).to_json()
    assert report["missing"] == []
    jh = report["three_way"]["judge_vs_human"]
    assert (jh["pairs"], jh["percent_agreement"]["value"]) == (3, pytest.approx(2 / 3))
    assert jh["direct_conflict_rate"]["value"] == pytest.approx(1 / 3)
    systems = [row["system"] for row in report["distribution"]]
    assert systems == ["no_agent-gpt4o", "openhands_agent-o4mini"]
    tasks = {(x["task"], x["implementation"]) for x in report["disagreements"]}
    assert tasks == {("12-Foo", 1)}


def test_cli_json_markdown_and_tables(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "250")
    out = write_eval_output(tmp_path)
    store = write_store(tmp_path / "labels.sqlite")
    bob = write_bob_file(tmp_path / "bob.json")
    base = ["agreement", "--human", str(store), str(bob), "--judge", str(out)]
    # i6's judge answer is unparsed: a finding, so exit 1 (the analysis itself ran).
    assert main([*base, "--json", "--bootstrap", "50"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["three_way"]["judge_vs_human"]["percent_agreement"]["value"] == 0.5
    target = tmp_path / "report" / "agreement.md"
    assert main([*base, "--markdown", "-o", str(target), "--bootstrap", "0"]) == 1
    assert target.read_text().startswith("# Agreement")
    assert main([*base, "--bootstrap", "20"]) == 1
    shown = capsys.readouterr().out
    assert "Krippendorff" in shown and "Disagreements" in shown


def test_cli_errors_are_one_paragraph(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(
        json.dumps(
            [
                {
                    "annotator": "a",
                    "agent_type": "no_agent",
                    "model_name": "m",
                    "paper_index": 1,
                    "function_index": 0,
                    "human_judge_result": 5,
                }
            ]
        )
    )
    assert main(["agreement", "--human", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "bad.json" in err and "record 0" in err and "Traceback" not in err
    assert main(["agreement"]) == 2  # no default store yet
    assert "no human labels" in capsys.readouterr().err
    assert main(["agreement", "--human", str(bad), "--judge", str(tmp_path / "nope")]) == 2
    assert main(["agreement", "--human", str(tmp_path / "x.json")]) == 2
    assert "no such" in capsys.readouterr().err


def test_user_aliases_make_other_names_match(tmp_path: Path) -> None:
    judges = tmp_path / "published"
    folder = judges / "MyAgent" / "gpt-4o"
    folder.mkdir(parents=True)
    (folder / "3-Foo_repo_0_analysis.txt").write_text('{"category": "3", "rationale": []}')
    human = tmp_path / "human.json"
    record = {
        "annotator": "a",
        "agent_type": "my_agent",
        "model_name": "gpt4o",
        "paper_index": 3,
        "function_index": 0,
        "human_judge_result": 3,
    }
    human.write_text(json.dumps([record]))
    aliases = tmp_path / "aliases.toml"
    aliases.write_text('[agents]\nMyAgent = "my_agent"\n[models]\n"gpt-4o" = "gpt4o"\n')
    out = tmp_path / "report.json"
    base = ["agreement", "--human", str(human), "--judge", str(judges), "--json", "-o", str(out)]
    assert main([*base, "--bootstrap", "0"]) == 0
    assert len(json.loads(out.read_text())["missing"]) == 2  # without aliases: no match
    assert main([*base, "--bootstrap", "0", "--aliases", str(aliases)]) == 0
    report = json.loads(out.read_text())
    assert report["missing"] == []
    assert report["three_way"]["judge_vs_human"]["percent_agreement"]["value"] == 1.0


def test_a_judgment_of_an_older_candidate_is_flagged(tmp_path: Path) -> None:
    out = write_eval_output(tmp_path)
    path = out / "judgments" / SYSTEM / "01-DPO" / "1.json"
    data = json.loads(path.read_text())
    data["candidate_sha256"] = "f" * 64
    path.write_text(json.dumps(data))
    report = analyze([], load_judge_source(out), options=Options(bootstrap=0)).to_json()
    (stale,) = report["stale"]
    assert (stale["rater"], stale["task"], stale["implementation"]) == (JUDGE, "01-DPO", 1)
    assert report["distribution"][0]["judge"]["n"] == 5


def test_conflicting_copies_of_one_label_are_noted(tmp_path: Path) -> None:
    from lmr_author.labels import Label

    first = Label("a", SYSTEM, "01-DPO", 1, 1, created_at="2026-01-01T00:00:00.000Z")
    later = Label("a", SYSTEM, "1", 1, 3, created_at="2026-02-01T00:00:00.000Z")
    report = analyze([later, first], None, options=Options(bootstrap=0)).to_json()
    assert report["distribution"][0]["human"]["counts"]["CC"] == 1
    assert any("twice" in note for note in report["notes"])
    assert report["three_way"]["judge_vs_human"] is None


def test_runs_without_judgments_still_check_hashes(tmp_path: Path) -> None:
    import shutil

    out = write_eval_output(tmp_path)
    shutil.rmtree(out / "judgments")
    labels, _ = load_human_labels([write_store(tmp_path / "s.sqlite")])
    report = analyze(labels, load_judge_source(out), options=Options(bootstrap=0)).to_json()
    assert any("no judgments yet" in note for note in report["notes"])
    assert [x["rater"] for x in report["stale"]] == ["bob"]
    assert report["three_way"]["judge_vs_human"]["pairs"] == 0
    # every run is missing its judgment; i7 is also missing both annotators.
    assert len(report["missing"]) == 7


@pytest.mark.slow
def test_published_scale_with_full_bootstrap(tmp_path: Path) -> None:
    """168 items x (2 annotators + judge), 1000 resamples: the benchmark of the report."""
    import time

    from tests.labels.agreement_fixtures import write_published_scale

    judges, human = write_published_scale(tmp_path)
    labels, _ = load_human_labels([human])
    judge = load_judge_source(judges)
    started = time.perf_counter()
    report = analyze(labels, judge, options=Options(bootstrap=1000, seed=1)).to_json()
    elapsed = time.perf_counter() - started
    print(f"analyze: 168 items, 1000 resamples: {elapsed:.2f} s")
    assert report["inputs"]["items"] == 168 and report["missing"] == []
    assert len(report["distribution"]) == 6
    jh = report["three_way"]["judge_vs_human"]
    assert jh["pairs"] == 336
    low, high = jh["percent_agreement"]["ci"]
    assert low < jh["percent_agreement"]["value"] < high
