"""End to end on the sample benchmark: eval in Docker, the judge against a local server,
human labels in a store, then `report`: every number equals results.json, the judgment
files and the labels, recomputed here from the files as stored."""

from __future__ import annotations

import itertools
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from lmr_author.cli import main
from lmr_author.domain.three_way import short_name
from lmr_author.labels import Label, LabelStore
from tests.support.openai_server import OpenAIServer, Reply

pytestmark = [pytest.mark.docker, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "benchmark"
SUBMISSIONS = SAMPLE / "submissions"


def test_report_of_the_sample_systems_equals_its_sources(
    tmp_path: Path, docker_client: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "results"
    argv = ["eval", str(SAMPLE), "--output", str(out)]
    for system in ("correct", "subtle-bug", "wrong-logic"):
        argv += ["-s", str(SUBMISSIONS / system)]
    assert main(argv) == 0
    categories = itertools.cycle([3, 2, 1, 3])
    with OpenAIServer(lambda request: Reply.answer(next(categories))) as server:
        judge = ["judge", str(out), "--base-url", server.base_url, "--concurrency", "1"]
        assert main(judge) == 0
    stored = json.loads((out / "results.json").read_text())
    store = tmp_path / "labels.sqlite"
    with LabelStore(store) as labels:
        for n, run in enumerate(stored["runs"]):
            labels.add(Label("ann", run["system"], run["task"], run["implementation"],
                             1 + n % 3, candidate_sha256=run["candidate_sha256"]))  # fmt: skip
    capsys.readouterr()
    site = tmp_path / "site"
    assert main(["report", str(out), "--human", str(store), "--format", "json",
                 "--html", str(site)]) == 0  # fmt: skip
    report = json.loads(capsys.readouterr().out)
    rows = {row["system"]: row for row in report["systems"]}
    assert set(rows) == set(stored["systems"])
    judged: dict[str, Counter[str]] = {name: Counter() for name in rows}
    for path in (out / "judgments").glob("*/*/*.json"):
        data = json.loads(path.read_text())
        judged[data["system"]][short_name(data["category"])] += 1
    human: dict[str, Counter[str]] = {name: Counter() for name in rows}
    for n, run in enumerate(stored["runs"]):
        human[run["system"]][short_name(1 + n % 3)] += 1
    for system, summary in stored["systems"].items():
        row = rows[system]
        assert row["unit_tests"]["passed"] == summary["passed"]
        assert row["unit_tests"]["counted"] == summary["implementations"] == 8
        for label in ("CC", "LC", "LI"):
            assert row["judge"]["counts"][label] == judged[system][label]
            assert row["human"]["counts"][label] == human[system][label]
    assert rows["correct"]["unit_tests"]["percent"] == 100.0
    assert sum(report["category_distribution"].values()) == 8
    assert (site / "index.html").is_file()
    assert all((site / f"{stem}.png").stat().st_size > 1000 for stem in ("accuracy", "labels"))
