"""The review app end to end in a real pseudo-terminal: keys in, labels stored, exit code 0."""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios
import threading
import time
from collections.abc import Callable
from pathlib import Path

from lmr_author.labels.store import LabelStore

#: The command a user types, through the real entry point; --show-systems names the
#: systems and groups the queue, so the first item is "correct" implementation 1.
SCRIPT = (
    "import sys; from lmr_author.cli import main; "
    "sys.exit(main(['review', sys.argv[1], '--annotator', 'alice', "
    "'--store', sys.argv[2], '--show-systems']))"
)


def wait_for(condition: Callable[[], bool], timeout: float = 60.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return False


def test_run_review_in_a_terminal(results_dir: Path, store_path: Path) -> None:
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "120", "LINES": "40"}
    process = subprocess.Popen(
        [sys.executable, "-c", SCRIPT, str(results_dir), str(store_path)],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        close_fds=True,
    )
    os.close(slave)
    screen = bytearray()

    def read() -> None:
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                return
            if not chunk:
                return
            screen.extend(chunk)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        assert wait_for(lambda: b"Item 1 of 4" in screen), screen[-2000:]
        assert wait_for(lambda: b"system correct" in screen), screen[-2000:]
        os.write(master, b"3")

        def stored() -> bool:
            with LabelStore(store_path) as store:
                return store.latest("alice", ("correct", "01-Toy", 1)) is not None

        assert wait_for(stored)
        os.write(master, b"q")
        assert process.wait(timeout=60) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=30)
        os.close(master)
        reader.join(timeout=5)
    with LabelStore(store_path) as store:
        [label] = store.labels("alice")
    assert (label.system, label.implementation, label.label) == ("correct", 1, 3)
