"""Cleared labels (tombstones, history kept) and comment drafts in the label store."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from lmr_author.domain.item_key import ItemKey
from lmr_author.labels import Label, LabelStore

ITEM = ItemKey("no_agent-gpt4o", "01-DPO", 1)
OTHER = ItemKey("no_agent-gpt4o", "01-DPO", 2)


def test_a_cleared_label_no_longer_counts_but_stays_in_history(tmp_path: Path) -> None:
    with LabelStore(tmp_path / "labels.sqlite") as store:
        first = Label("ann", *ITEM, label=1, comment="wrong sign")
        store.add(first)
        store.add(Label("ann", *OTHER, label=3))
        store.clear(first)
        assert store.latest("ann", ITEM) is None
        assert [x.item for x in store.labels()] == [OTHER]
        assert [x.item for x in store.labels("ann")] == [OTHER]
        assert [(x.label.label, x.cleared) for x in store.events("ann", ITEM)] == [
            (1, False),
            (1, True),
        ]
        assert [x.label for x in store.history("ann", ITEM)] == [1]
        # Labeling again after a clearing counts again.
        store.add(Label("ann", *ITEM, label=2))
        latest = store.latest("ann", ITEM)
        assert latest is not None and latest.label == 2
        assert store.annotators() == ["ann"]


def test_drafts_are_kept_per_annotator_and_item_and_removed_when_empty(tmp_path: Path) -> None:
    path = tmp_path / "labels.sqlite"
    with LabelStore(path) as store:
        store.save_draft("ann", ITEM, "looks off")
        store.save_draft("ann", ITEM, "looks off by one")
        store.save_draft("bob", ITEM, "fine")
        store.save_draft("ann", OTHER, "")
    with LabelStore(path) as store:  # a new connection: the drafts are on disk
        assert store.drafts("ann") == {ITEM: "looks off by one"}
        assert store.drafts("bob") == {ITEM: "fine"}
        store.save_draft("ann", ITEM, "")
        assert store.drafts("ann") == {}


def test_a_version_1_store_is_upgraded_in_place(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    conn = sqlite3.connect(path)
    conn.executescript(
        """
        CREATE TABLE labels (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            annotator TEXT NOT NULL, system TEXT NOT NULL, task TEXT NOT NULL,
            implementation INTEGER NOT NULL CHECK (implementation >= 1),
            label INTEGER NOT NULL CHECK (label BETWEEN 1 AND 3),
            comment TEXT NOT NULL DEFAULT '', created_at TEXT NOT NULL,
            candidate_sha256 TEXT NOT NULL DEFAULT ''
        );
        INSERT INTO labels (annotator, system, task, implementation, label, created_at)
            VALUES ('ann', 'no_agent-gpt4o', '01-DPO', 1, 3, '2026-01-01T00:00:00.000Z');
        PRAGMA user_version = 1;
        """
    )
    conn.close()
    with LabelStore(path) as store:
        (old,) = store.labels()
        assert (old.annotator, old.label) == ("ann", 3)
        store.clear(old)
        store.save_draft("ann", ITEM, "second thoughts")
        assert store.labels() == []
    with LabelStore(path) as store:
        assert store.labels() == []
        assert store.drafts("ann") == {ITEM: "second thoughts"}
