"""The headless review library: loading the queue, sampling, content, sessions, errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from lmr_author.eval_output import file_sha256 as candidate_sha256
from lmr_author.labels.store import LabelStore
from lmr_author.review import (
    LabelStatus,
    ReviewSession,
    load_item_content,
    load_review_items,
    open_session,
    read_benchmark_dir,
    sample_items,
)
from lmr_author.tui.review import run_review
from lmr_author.util.errors import UserError
from tests.tui.review.builders import rerun


def test_items_are_loaded_in_order_with_hash_verdict_and_judgment(results_dir: Path) -> None:
    items = load_review_items(results_dir)
    assert [item.key for item in items] == [
        ("correct", "01-Toy", 1),
        ("correct", "01-Toy", 2),
        ("no_agent-gpt4o", "01-Toy", 1),
        ("no_agent-gpt4o", "01-Toy", 2),
    ]
    first = items[0]
    assert first.verdict == "pass"
    assert first.candidate_sha256 == candidate_sha256(first.candidate_path)
    assert len(first.candidate_sha256) == 64
    assert first.judgment is not None and first.judgment.label == "CC"
    assert first.judgment_is_current
    assert items[3].judgment is None
    assert items[1].qualified_name == "Scaler.scale"


def test_judgment_of_an_older_candidate_is_not_current(results_dir: Path) -> None:
    rerun(results_dir, "correct", 1, "def add(a, b):\n    return 0\n")
    item = load_review_items(results_dir)[0]
    assert item.judgment is not None and not item.judgment_is_current


def test_sample_is_seeded_stable_and_in_queue_order(results_dir: Path) -> None:
    items = load_review_items(results_dir)
    first = sample_items(items, 2, seed=7)
    assert first == sample_items(items, 2, seed=7)
    assert len(first) == 2
    assert first == [item for item in items if item in first]
    samples = {tuple(x.key for x in sample_items(items, 2, seed=s)) for s in range(20)}
    assert len(samples) > 1  # the seed matters
    assert sample_items(items, 10, seed=0) == items
    with pytest.raises(UserError, match="--sample"):
        sample_items(items, 0)


def test_missing_and_empty_folders_are_user_errors(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="no such folder"):
        load_review_items(tmp_path / "nope")
    with pytest.raises(UserError, match="nothing to review"):
        load_review_items(tmp_path)
    (tmp_path / "runs").mkdir()
    with pytest.raises(UserError, match="no runs found"):
        load_review_items(tmp_path)


def test_broken_run_json_names_the_file_and_line(results_dir: Path) -> None:
    run_file = results_dir / "runs" / "correct" / "01-Toy" / "2" / "run.json"
    run_file.write_text('{\n  "system": "correct",\n  oops\n}')
    with pytest.raises(UserError) as caught:
        load_review_items(results_dir)
    message = str(caught.value)
    assert str(run_file) in message and "line 3" in message
    run_file.write_text(json.dumps({"implementation": "two"}))
    with pytest.raises(UserError, match="not a run record") as caught:
        load_review_items(results_dir)
    assert str(run_file) in str(caught.value)


def test_results_json_without_benchmark_is_a_user_error(results_dir: Path) -> None:
    (results_dir / "results.json").write_text("{}")
    with pytest.raises(UserError, match=r"\$\.benchmark"):
        read_benchmark_dir(results_dir)
    (results_dir / "results.json").unlink()
    assert read_benchmark_dir(results_dir) is None


def test_content_explains_what_it_cannot_show(results_dir: Path) -> None:
    items = load_review_items(results_dir)
    no_benchmark = load_item_content(items[0], None)
    assert no_benchmark.golden == "" and "unavailable" in no_benchmark.golden_note
    assert "def add" in no_benchmark.candidate  # the candidate is still shown
    missing_task = load_item_content(items[0], results_dir / "elsewhere")
    assert "could not be loaded" in missing_task.golden_note
    items[2].candidate_path.write_text("def something_else():\n    pass\n")
    whole = load_item_content(items[2], read_benchmark_dir(results_dir))
    assert whole.candidate.startswith("def something_else")
    assert "defines no function `add`" in whole.candidate_note
    items[3].candidate_path.unlink()
    gone = load_item_content(items[3], read_benchmark_dir(results_dir))
    assert gone.candidate == "" and "missing" in gone.candidate_note
    assert "class Scaler" in gone.golden


def test_session_labels_durably_and_rejects_bad_values(results_dir: Path, store_path: Path) -> None:
    with LabelStore(store_path) as store:
        session = open_session(results_dir, "alice", store, show_systems=True)
        item = session.items[1]
        with pytest.raises(UserError, match="1, 2 or 3"):
            session.label(item, 4)
        assert session.comment(item, "looks fine") is None
        saved = session.label(item, 3)
        assert (saved.comment, saved.candidate_sha256) == ("looks fine", item.candidate_sha256)
        assert saved.created_at.endswith("Z")
        relabeled = session.label(item, 2)
        assert relabeled.comment == "looks fine"  # relabeling keeps the comment
    with LabelStore(store_path) as store:  # a new connection sees it: it is on disk
        session = open_session(results_dir, "alice", store, show_systems=True)
        assert session.state(session.items[1]).status is LabelStatus.LABELED
        assert session.progress() == (1, 4, 0)
        assert session.first_position() == 0
        assert session.next_position(0, only_unlabeled=True) == 2
        assert session.previous_position(2, only_unlabeled=True) == 0
        assert session.next_position(3) is None
        with pytest.raises(UserError, match="--annotator"):
            ReviewSession(session.items, "  ", store)


def test_run_review_reports_bad_input_before_opening_the_store(
    tmp_path: Path, results_dir: Path
) -> None:
    store_path = tmp_path / "store" / "labels.sqlite"
    with pytest.raises(UserError, match="nothing to review"):
        run_review(tmp_path, "alice", store_path=store_path)
    with pytest.raises(UserError, match="--annotator"):
        run_review(results_dir, " ", store_path=store_path)
    with pytest.raises(UserError, match="--sample"):
        run_review(results_dir, "alice", store_path=store_path, sample=0)
    assert not store_path.exists()
    (tmp_path / "not-a-store").write_text("labels")
    with pytest.raises(UserError, match="not a label store"):
        run_review(results_dir, "alice", store_path=tmp_path / "not-a-store")


def test_headless_review_modules_do_not_import_textual() -> None:
    code = (
        "import sys, lmr_author.review, lmr_author.review.session; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'textual' "
        "or m.startswith('lmr_author.tui')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"
