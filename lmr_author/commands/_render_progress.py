"""A rich progress bar on stderr for work that reports ``on_progress(done, total)``.

The library (judge, indexing) only calls back with counts; this is where they are drawn,
and only on a terminal, so piped output and ``--json`` stay clean.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager


@contextmanager
def progress_bar(label: str, *, enabled: bool = True) -> Iterator[Callable[[int, int], None]]:
    """Yield an ``on_progress(done, total)`` callback that draws a transient bar."""
    if not enabled or not sys.stderr.isatty():
        yield _nothing
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    bar = Progress(
        label,
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=True,
    )
    task_id = bar.add_task(label, total=None)

    def update(done: int, total: int) -> None:
        if total == 0:
            return  # nothing to do: no bar
        if not bar.live.is_started:
            bar.start()
        bar.update(task_id, completed=done, total=total)

    try:
        yield update
    finally:
        if bar.live.is_started:
            bar.stop()


def _nothing(done: int, total: int) -> None:
    pass
