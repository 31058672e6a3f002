"""A review process killed with SIGKILL in the middle loses no label already given."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

from lmr_author.labels.store import LabelStore
from lmr_author.review.drafts import MIN_CHANGE
from lmr_author.review.session import open_session

CHILD = Path(__file__).with_name("kill_child.py")


def test_sigkill_mid_session_keeps_every_given_label(results_dir: Path, store_path: Path) -> None:
    process = subprocess.Popen(
        [sys.executable, str(CHILD), str(results_dir), str(store_path), "alice", "3n1n2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        seen = []
        for line in process.stdout:
            seen.append(line.strip())
            if line.strip() == "labeled 2":
                break  # kill while the app is running and a third key is still to come
        assert seen[-1] == "labeled 2", (seen, process.stderr.read() if process.stderr else "")
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=30)
    assert process.returncode == -signal.SIGKILL

    with LabelStore(store_path) as store:
        labels = store.labels("alice")
        given = [(x.system, x.implementation, x.label) for x in labels]
        # Both labels announced before the kill are there; the third may or may not be.
        assert given[:2] == [("correct", 1, 3), ("correct", 2, 1)]
        session = open_session(results_dir, "alice", store, show_systems=True)
        assert session.first_position() == len(labels)
        assert all(x.candidate_sha256 for x in labels)


def test_sigkill_while_typing_a_comment_keeps_the_draft(
    results_dir: Path, store_path: Path
) -> None:
    """A comment typed but never saved (no Save, no label) survives a SIGKILL."""
    typed = "off by one in the mask"
    process = subprocess.Popen(
        [sys.executable, str(CHILD), str(results_dir), str(store_path), "alice", "3nc" + typed],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        seen = []
        for line in process.stdout:
            seen.append(line.strip())
            if line.strip() == "waiting":
                break
        assert seen[-1] == "waiting", (seen, process.stderr.read() if process.stderr else "")
        process.send_signal(signal.SIGKILL)  # at once: no pause for the debounce timer
        process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=30)
    assert process.returncode == -signal.SIGKILL

    with LabelStore(store_path) as store:
        session = open_session(results_dir, "alice", store, show_systems=True)
        item = session.items[1]
        draft = store.drafts("alice")[item.key]
        # Written as it was typed: at most the last few keystrokes can be missing.
        assert typed.startswith(draft) and len(typed) - len(draft) < MIN_CHANGE
        assert session.comment_for(item) == draft
        assert session.unsaved_comments() == [item]
        assert session.progress() == (1, 4, 0)
