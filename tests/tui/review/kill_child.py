"""Child process of the kill test: label items through the review app, then wait to be killed.

Usage: python kill_child.py OUTPUT_DIR STORE_PATH ANNOTATOR KEYS

Presses each key of KEYS (e.g. "3n1n2") in the app; after each label key it prints
``labeled <n>`` once the app has handled the key, then prints ``waiting`` and sleeps with
the app still running, so the parent can SIGKILL it mid-session. After a ``c`` the rest
of KEYS is typed into the comment dialog (a space is the space key) and never saved.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from lmr_author.labels.store import LabelStore
from lmr_author.review.session import open_session
from lmr_author.tui.review import ReviewApp


def report(line: str) -> None:
    """Tell the parent, through the real stdout.

    Under ``run_test`` Textual captures ``print`` and, headless, writes it on to the
    original stdout without ever flushing it; without PYTHONUNBUFFERED the line would
    stay in the pipe's buffer while the parent waits for it.
    """
    stream = sys.__stdout__
    assert stream is not None
    stream.write(line + "\n")
    stream.flush()


async def main(output_dir: Path, store_path: Path, annotator: str, keys: str) -> None:
    store = LabelStore(store_path)
    app = ReviewApp(open_session(output_dir, annotator, store, show_systems=True))
    async with app.run_test(size=(120, 40)) as pilot:
        await app.workers.wait_for_complete()
        labeled = 0
        commenting = False
        for key in keys:
            await pilot.press("space" if key == " " else key)
            commenting = commenting or key == "c"
            if key in "123" and not commenting:
                labeled += 1
                report(f"labeled {labeled}")
        report("waiting")
        await asyncio.sleep(3600)


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], sys.argv[4]))
