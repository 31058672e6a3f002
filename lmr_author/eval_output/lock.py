"""One evaluation per output folder at a time, and what an interrupted one left.

``eval`` holds an exclusive ``flock`` on ``OUTPUT/.eval.lock`` while it runs. The kernel
releases it when the process ends, however it ends (SIGKILL, a crash, a reboot), so a
dead evaluation never holds a folder; the file itself stays and means nothing by
itself. It holds who has the lock (pid, host, start time) so that a second evaluation
says who is in its way. ``flock`` is local to a machine on some network file systems
(older NFS without lock support): two hosts writing one shared folder at once are then
not stopped.

With the lock held, the temporary files of atomic writes that a killed evaluation left
beside its records (``.run.json.<random>.tmp``) are removed (`remove_interrupted_writes`):
nobody else can be writing them.
"""

from __future__ import annotations

import fcntl
import os
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from lmr_author.eval_output.layout import RUNS_DIR
from lmr_author.util.atomic import is_temporary
from lmr_author.util.errors import UserError

LOCK_FILE = ".eval.lock"


@contextmanager
def output_lock(output: Path) -> Iterator[None]:
    """Hold ``output``'s lock while inside; `UserError` naming the holder when another
    evaluation has it."""
    path = Path(output) / LOCK_FILE
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as error:
        raise UserError(
            f"cannot open the evaluation's lock file ({error.strerror or error})",
            file=path,
            hint="Check that you may write in the output folder.",
        ) from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 4096, 0).decode("utf-8", errors="replace").strip()
            raise UserError(
                f"another evaluation is writing this output folder ({holder or 'who is unknown'})",
                file=output,
                hint="Wait for it to finish (or stop it), or give another --output. Two "
                "evaluations into one folder would run the same runs twice.",
            ) from None
        started = datetime.now(UTC).isoformat(timespec="seconds")
        holder = f"pid {os.getpid()} on host {socket.gethostname()}, started {started}"
        os.ftruncate(fd, 0)
        os.pwrite(fd, holder.encode("utf-8"), 0)
        yield
    finally:
        os.close(fd)  # releases the lock


def remove_interrupted_writes(output: Path) -> list[Path]:
    """Remove the temporary files of atomic writes cut short under ``output`` (its
    results.json and runs/); return them. Only with `output_lock` held."""
    output = Path(output)
    found = [path for path in output.glob(".*.tmp") if is_temporary(path)]
    found += [path for path in (output / RUNS_DIR).rglob(".*.tmp") if is_temporary(path)]
    removed = []
    for path in found:
        try:
            path.unlink()
        except FileNotFoundError:
            continue
        removed.append(path)
    return removed
