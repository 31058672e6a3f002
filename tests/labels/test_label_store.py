"""The label store: history, latest-wins, several annotators, durability across a kill."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from lmr_author.labels import InvalidLabelError, Label, LabelStore, default_store_path
from lmr_author.util.errors import UserError

ITEM = ("no_agent-gpt4o", "01-DPO", 1)


def test_latest_wins_and_history_is_kept(tmp_path: Path) -> None:
    with LabelStore(tmp_path / "labels.sqlite") as store:
        store.add(Label("ann", *ITEM, label=1, comment="first"))
        store.add(Label("ann", *ITEM, label=3, comment="second look"))
        store.add(Label("bob", *ITEM, label=2))
        latest = store.latest("ann", ITEM)
        assert latest is not None and latest.label == 3 and latest.comment == "second look"
        assert [x.label for x in store.history("ann", ITEM)] == [1, 3]
        assert store.latest("ann", ("no_agent-gpt4o", "01-DPO", 2)) is None
        assert store.annotators() == ["ann", "bob"]
        assert [(x.annotator, x.label) for x in store.labels()] == [("ann", 3), ("bob", 2)]
        assert [x.label for x in store.labels("bob")] == [2]


def test_add_changed_skips_what_already_counts(tmp_path: Path) -> None:
    with LabelStore(tmp_path / "labels.sqlite") as store:
        store.add(Label("ann", *ITEM, label=2, comment="close"))
        same = Label("ann", *ITEM, label=2, comment="close")
        recommented = Label("ann", *ITEM, label=2, comment="closer look")
        other = Label("bob", *ITEM, label=2, comment="close")
        assert store.add_changed([same, recommented, other]) == [recommented, other]
        assert store.add_changed([same]) == [same]  # no longer the latest: counts again
        assert store.add_changed([same]) == []
        assert len(store.history("ann", ITEM)) == 3


def test_reopen_keeps_every_field(tmp_path: Path) -> None:
    label = Label(
        "ann",
        *ITEM,
        label=2,
        comment="é ünïcode",
        created_at="2026-01-02T03:04:05.000Z",
        candidate_sha256="ab" * 32,
    )
    with LabelStore(tmp_path / "s.sqlite") as store:
        store.add(label)
    with LabelStore(tmp_path / "s.sqlite") as store:
        assert store.labels() == [label]


def test_default_path_is_in_the_data_dir() -> None:
    # conftest points LMR_AUTHOR_DATA_DIR at a temporary folder.
    assert default_store_path().parent == Path(os.environ["LMR_AUTHOR_DATA_DIR"])
    with LabelStore() as store:
        store.add(Label("ann", *ITEM, label=3))
    assert default_store_path().is_file()


@pytest.mark.parametrize(
    "kwargs",
    [
        {"label": 4},
        {"label": 0},
        {"label": True},
        {"implementation": 0},
        {"annotator": " "},
        {"task": ""},
    ],
)
def test_invalid_labels_are_refused(kwargs: dict[str, object]) -> None:
    fields: dict[str, object] = {
        "annotator": "ann",
        "system": "s",
        "task": "01-DPO",
        "implementation": 1,
        "label": 2,
    }
    fields.update(kwargs)
    with pytest.raises(InvalidLabelError):
        Label(**fields)  # type: ignore[arg-type]


def test_a_file_that_is_not_a_store_is_a_user_error(tmp_path: Path) -> None:
    bogus = tmp_path / "labels.json"
    bogus.write_text("[]")
    with pytest.raises(UserError, match="not a label store"):
        LabelStore(bogus)
    with pytest.raises(UserError, match="folder"):
        LabelStore(tmp_path)


def test_threads_can_write_concurrently(tmp_path: Path) -> None:
    with LabelStore(tmp_path / "s.sqlite") as store:

        def work(name: str) -> None:
            for i in range(1, 26):
                store.add(Label(name, "sys", "01-DPO", i, label=1 + i % 3))

        threads = [threading.Thread(target=work, args=(f"a{n}",)) for n in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert len(store.labels()) == 100


def test_a_killed_process_loses_no_label_already_added(tmp_path: Path) -> None:
    """A writer is SIGKILLed mid-stream; every label it reported as added is there."""
    db = tmp_path / "s.sqlite"
    script = textwrap.dedent(
        f"""
        import sys, time
        from pathlib import Path
        from lmr_author.labels import Label, LabelStore
        store = LabelStore(Path({str(db)!r}))
        i = 0
        while True:
            i += 1
            store.add(Label("ann", "sys", "01-DPO", i, label=1 + i % 3))
            print(i, flush=True)
            time.sleep(0.005)
        """
    )
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    acknowledged = 0
    for line in proc.stdout:
        acknowledged = int(line)
        if acknowledged >= 40:
            break
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    proc.stdout.close()
    with LabelStore(db) as store:
        implementations = {x.implementation for x in store.labels("ann")}
    assert set(range(1, acknowledged + 1)) <= implementations
