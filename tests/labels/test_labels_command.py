"""`lmr-author labels import / export / list` through the real CLI entry point."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from lmr_author.cli import main
from lmr_author.labels import Label, LabelStore, default_store_path
from lmr_author.labels.published import read_label_file

RECORDS = [
    {
        "annotator": "Shuo",
        "agent_type": "openhands_agent",
        "model_name": "gpt4.1",
        "paper_index": 7,
        "function_index": 0,
        "human_judge_result": 1,
        "comment": "unimplemented",
    },
    {
        "annotator": "Shuo",
        "agent_type": "no_agent",
        "model_name": "gpt4o",
        "paper_index": 1,
        "function_index": 1,
        "human_judge_result": 3,
        "comment": "",
    },
]


def test_import_export_round_trip_through_the_store(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "in.json"
    source.write_text(json.dumps(RECORDS))
    store = tmp_path / "s.sqlite"
    assert main(["labels", "import", str(source), "--store", str(store)]) == 0
    assert "imported 2 labels" in capsys.readouterr().out
    # Importing again adds nothing (unchanged labels are skipped).
    assert main(["labels", "import", str(source), "--store", str(store)]) == 0
    assert "imported 0 labels, 2 unchanged skipped" in capsys.readouterr().out

    exported = tmp_path / "out.json"
    assert main(["labels", "export", "--store", str(store), "-o", str(exported)]) == 0
    with LabelStore(store) as opened:
        assert sorted(read_label_file(exported), key=str) == sorted(opened.labels(), key=str)
    bare = tmp_path / "bare.json"
    assert main(["labels", "export", "--store", str(store), "-o", str(bare), "--bare"]) == 0
    key = ("paper_index", "function_index")
    assert sorted(json.loads(bare.read_text()), key=lambda r: [r[k] for k in key]) == sorted(
        RECORDS, key=lambda r: [r[k] for k in key]
    )

    assert main(["labels", "list", "--store", str(store), "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert {x["system"] for x in listed} == {"openhands_agent-gpt4.1", "no_agent-gpt4o"}


def test_import_names_tasks_after_the_benchmark(tmp_path: Path) -> None:
    benchmark = tmp_path / "bench"
    for name in ("01-DPO", "07-Foo"):
        (benchmark / name).mkdir(parents=True)
        (benchmark / name / "info.json").write_text("{}")
    source = tmp_path / "in.json"
    source.write_text(json.dumps(RECORDS))
    assert main(["labels", "import", str(source), "--benchmark", str(benchmark)]) == 0
    with LabelStore() as store:
        assert {x.task for x in store.labels()} == {"01-DPO", "07-Foo"}
    assert default_store_path().is_file()


def test_a_bad_file_imports_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = tmp_path / "good.json"
    good.write_text(json.dumps(RECORDS))
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([RECORDS[0], {**RECORDS[1], "human_judge_result": 7}]))
    store = tmp_path / "s.sqlite"
    assert main(["labels", "import", str(good), str(bad), "--store", str(store)]) == 2
    err = capsys.readouterr().err
    assert "bad.json (record 1, key 'human_judge_result')" in err and "got 7" in err
    with LabelStore(store) as opened:
        assert opened.labels() == []


def test_export_filters_annotators_and_writes_stdout(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = tmp_path / "s.sqlite"
    with LabelStore(store) as opened:
        opened.add(Label("ann", "no_agent-gpt4o", "01-DPO", 1, 2))
        opened.add(Label("bob", "no_agent-gpt4o", "01-DPO", 1, 3))
    args = ["labels", "export", "--store", str(store), "-o", "-", "--annotator", "bob"]
    assert main(args) == 0
    (record,) = json.loads(capsys.readouterr().out)
    assert record["annotator"] == "bob" and record["human_judge_result"] == 3
    assert main([*args[:-1], "carol"]) == 2
    assert "no labels by carol" in capsys.readouterr().err
    assert main(["labels"]) == 2


def test_labels_list_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = tmp_path / "s.sqlite"
    with LabelStore(store) as opened:
        opened.add(Label("ann", "no_agent-gpt4o", "01-DPO", 1, 2, "a comment"))
    assert main(["labels", "list", "--store", str(store)]) == 0
    assert "1 labels" in capsys.readouterr().out


def test_the_store_api_stays_light_to_import() -> None:
    """The review TUI imports lmr_author.labels; it must not pull in the statistics stack."""
    code = (
        "import sys, lmr_author.labels\n"
        "heavy = [m for m in ('numpy', 'scipy', 'statsmodels', 'krippendorff', 'textual')"
        " if m in sys.modules]\n"
        "assert not heavy, heavy\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
