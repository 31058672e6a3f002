"""The label store holds each label once, whatever spelling of its task it arrived with."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from lmr_author.cli import main
from lmr_author.labels import Label, LabelStore
from lmr_author.labels.model import ItemKey

RECORDS = [
    {
        "annotator": "ann",
        "agent_type": agent,
        "model_name": "gpt4o",
        "paper_index": index,
        "function_index": 0,
        "human_judge_result": 1 + (index + len(agent)) % 3,
        "comment": f"c{index}",
    }
    for agent in ("no_agent", "openhands_agent")
    for index in (1, 2, 19)
]
FOLDERS = ("01-DPO", "02-HITs", "19-Native-Sparse-Attention")


def _benchmark(tmp_path: Path) -> Path:
    benchmark = tmp_path / "bench"
    for name in FOLDERS:
        (benchmark / name).mkdir(parents=True)
        (benchmark / name / "info.json").write_text("{}")
    return benchmark


def _rows(store: Path) -> list[tuple[object, ...]]:
    with sqlite3.connect(store) as conn:
        return conn.execute(
            "SELECT annotator, system, task, implementation, label, comment, cleared "
            "FROM labels ORDER BY id"
        ).fetchall()


@pytest.mark.parametrize("benchmark_first", [True, False])
def test_importing_a_file_twice_with_and_without_benchmark_stores_it_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], benchmark_first: bool
) -> None:
    source = tmp_path / "labels.json"
    source.write_text(json.dumps(RECORDS))
    store = tmp_path / "s.sqlite"
    with_benchmark = ["--benchmark", str(_benchmark(tmp_path))]
    runs = [with_benchmark, []] if benchmark_first else [[], with_benchmark]
    assert main(["labels", "import", str(source), "--store", str(store), *runs[0]]) == 0
    capsys.readouterr()
    before = _rows(store)
    assert len(before) == len(RECORDS)
    assert main(["labels", "import", str(source), "--store", str(store), *runs[1]]) == 0
    assert "imported 0 labels, 6 unchanged skipped" in capsys.readouterr().out
    after = _rows(store)
    if benchmark_first:
        assert after == before  # nothing at all changed
    else:  # the same labels, now spelt by the benchmark's folders
        assert [row[:2] + row[3:] for row in after] == [row[:2] + row[3:] for row in before]
    assert sorted({str(row[2]) for row in after}) == sorted(FOLDERS)
    exported = tmp_path / "out.json"
    assert main(["labels", "export", "--store", str(store), "-o", str(exported), "--bare"]) == 0
    assert sorted(json.loads(exported.read_text()), key=str) == sorted(RECORDS, key=str)


def test_lookups_find_a_label_under_any_spelling_of_its_task(tmp_path: Path) -> None:
    with LabelStore(tmp_path / "s.sqlite") as store:
        store.add(Label("ann", "no_agent-gpt4o", "1", 1, 2))
        store.add(Label("ann", "no_agent-gpt4o", "1-DPO", 1, 3))  # a relabel, richer name
        for spelling in ("1", "01", "1-DPO", "01-DPO"):
            latest = store.latest("ann", ItemKey("no_agent-gpt4o", spelling, 1))
            assert latest is not None and latest.label == 3 and latest.task == "01-DPO"
        assert [x.label for x in store.history("ann", ItemKey("no_agent-gpt4o", "1", 1))] == [2, 3]
        assert len(store.labels()) == 1


def test_two_named_tasks_with_one_number_stay_apart(tmp_path: Path) -> None:
    with LabelStore(tmp_path / "s.sqlite") as store:
        store.add(Label("ann", "s", "01-DPO", 1, 2))
        store.add(Label("ann", "s", "01-Other", 1, 3))
        store.add(Label("ann", "s", "1", 2, 1))  # ambiguous: kept as its own spelling
        assert sorted(x.task for x in store.labels()) == ["01", "01-DPO", "01-Other"]


def _old_store(path: Path) -> None:
    """A store as version 2 wrote it: one label file imported without, then with,
    --benchmark (task "1" then "01-DPO"), plus a relabel and drafts under both names."""
    with LabelStore(path) as store:
        first = [Label("ann", "no_agent-gpt4o", "1", 1, 2, "x", "2026-01-01T00:00:00.000Z")]
        first.append(Label("ann", "no_agent-gpt4o", "2", 1, 1, "", "2026-01-01T00:00:00.000Z"))
        again = [
            Label("ann", "no_agent-gpt4o", "01-DPO", 1, 2, "x", "2026-01-02T00:00:00.000Z"),
            Label("ann", "no_agent-gpt4o", "02-HITs", 1, 1, "", "2026-01-02T00:00:00.000Z"),
            Label("ann", "no_agent-gpt4o", "02-HITs", 1, 3, "", "2026-01-03T00:00:00.000Z"),
        ]
        # What version 2 did: insert rows exactly as spelt (no merging of spellings).
        with store._transaction():
            store._insert(first + again, cleared=False)
            store._conn.execute(
                "INSERT INTO comment_drafts VALUES ('ann', 'no_agent-gpt4o', '2', 1, 'old', "
                "'2026-01-01'), ('bob', 'no_agent-gpt4o', '1', 1, 'keep', '2026-01-01')"
            )
        store._conn.execute("PRAGMA user_version = 2")


def test_opening_a_version_2_store_merges_its_duplicates(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    _old_store(path)
    assert len(_rows(path)) == 5
    with LabelStore(path) as store:
        labels = {(x.task, x.label) for x in store.labels()}
        assert labels == {("01-DPO", 2), ("02-HITs", 3)}
        # The repeated import is gone; the relabel of 02-HITs stays in the history.
        item = ItemKey("no_agent-gpt4o", "02-HITs", 1)
        assert [x.label for x in store.history("ann", item)] == [1, 3]
        assert len(store.history("ann", ItemKey("no_agent-gpt4o", "01-DPO", 1))) == 1
        assert store.drafts("ann") == {item: "old"}
        assert store.drafts("bob") == {ItemKey("no_agent-gpt4o", "01-DPO", 1): "keep"}
    assert len(_rows(path)) == 3
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 3
    with LabelStore(path) as store:  # opening again changes nothing
        assert len(store.labels()) == 2
    assert len(_rows(path)) == 3
