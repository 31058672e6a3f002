"""`labels import / export / list` with malformed label, alias and store files."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given

from tests.support.fuzz import (
    FUZZ,
    assert_no_traceback,
    assert_refused,
    json_bytes,
    malformed_bytes,
    run_cli,
    wrong_json,
)

GOOD = [
    {
        "annotator": "ann",
        "agent_type": "BaseAgent",
        "model_name": "gpt4o",
        "paper_index": 1,
        "function_index": 0,
        "human_judge_result": 3,
        "comment": "",
    }
]


@FUZZ
@given(data=malformed_bytes)
def test_import_a_malformed_label_file(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "labels.json"
        path.write_bytes(data)
        store = Path(tmp) / "s.sqlite"
        assert_refused(run_cli(["labels", "import", "--store", str(store), str(path)]), path)
        assert not store.exists()  # checked before the store is even opened


@FUZZ
@given(data=wrong_json)
def test_import_label_json_of_any_shape(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "labels.json"
        path.write_bytes(data)
        outcome = run_cli(["labels", "import", "--store", str(Path(tmp) / "s.sqlite"), str(path)])
        assert_no_traceback(outcome)
        if outcome.code == 2:
            assert_refused(outcome, path)


@FUZZ
@given(data=malformed_bytes | wrong_json, record=wrong_json)
def test_import_with_a_malformed_aliases_file_or_record(data: bytes, record: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        labels = Path(tmp) / "labels.json"
        labels.write_bytes(json_bytes(GOOD))
        aliases = Path(tmp) / "aliases.json"
        aliases.write_bytes(data)
        outcome = run_cli(["labels", "import", "--aliases", str(aliases), str(labels)])
        assert_no_traceback(outcome)
        if outcome.code == 2:
            assert_refused(outcome, aliases)
        # One bad record among good ones, with every field fuzzed.
        labels.write_bytes(b"[" + json_bytes(GOOD[0]) + b", " + record + b"]")
        outcome = run_cli(["labels", "import", "--store", str(Path(tmp) / "s"), str(labels)])
        assert_no_traceback(outcome)
        if outcome.code == 2:
            assert_refused(outcome, labels)


@FUZZ
@given(data=malformed_bytes)
def test_list_and_export_with_a_store_that_is_not_one(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        store = Path(tmp) / "labels.sqlite"
        store.write_bytes(b"SQLite format 3\x00" + data if data else b"x")
        assert_refused(run_cli(["labels", "list", "--store", str(store)]), store)
        out = Path(tmp) / "out.json"
        assert_refused(run_cli(["labels", "export", "--store", str(store), "-o", str(out)]), store)


def test_export_to_a_folder_is_refused(tmp_path: Path) -> None:
    labels = tmp_path / "labels.json"
    labels.write_bytes(json_bytes(GOOD))
    store = tmp_path / "s.sqlite"
    assert run_cli(["labels", "import", "--store", str(store), str(labels)]).code == 0
    folder = tmp_path / "exports"
    folder.mkdir()
    outcome = run_cli(["labels", "export", "--store", str(store), "-o", str(folder)])
    assert_refused(outcome, folder)
    assert "is a folder" in outcome.err


def test_a_huge_paper_index_is_refused(tmp_path: Path) -> None:
    labels = tmp_path / "labels.json"
    labels.write_bytes(json_bytes([{**GOOD[0], "paper_index": 10**30}]))
    outcome = run_cli(["labels", "import", "--store", str(tmp_path / "s"), str(labels)])
    assert_refused(outcome, labels)
    assert "paper_index" in outcome.err
