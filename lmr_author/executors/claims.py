"""Who runs which run of a job array: claim files in the array's shared folder.

An array of ``count`` runs has fewer elements than runs; each element (a worker) claims
run after run until none is left, so Python's and Slurm's start-up are paid once per
worker, not once per run. Run ``i`` is claimed by creating ``i.claim`` holding the
claimer's name: written whole to a scratch file first, then hard-linked to its name.
``link`` fails when the name exists, atomically, on a local file system and on NFS
alike (the classic NFS lock; ``O_EXCL`` is atomic on NFS only from v3 on), so of any
number of claimers exactly one gets each run, and a reader never sees a claim half
written. A claim is never removed while its array is alive: nothing runs twice.

The submitter claims too: before it submits an unclaimed run again elsewhere (its
array's workers all gone), it claims the run as `WITHDRAWN`, so a late worker of the
old array cannot start it as well.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from pathlib import Path

#: The holder of a run the submitter took back to submit again.
WITHDRAWN = "withdrawn"


def claim_path(folder: Path, index: int) -> Path:
    return folder / f"{index}.claim"


def claim(folder: Path, index: int, holder: str) -> bool:
    """Claim run ``index`` for ``holder``; False when someone holds it already."""
    scratch = folder / f".{index}.claim.{secrets.token_hex(6)}"
    scratch.write_text(holder, encoding="utf-8")
    try:
        os.link(scratch, claim_path(folder, index))
    except FileExistsError:
        return False
    finally:
        with contextlib.suppress(OSError):
            scratch.unlink()
    return True


def holder(folder: Path, index: int) -> str | None:
    """Who holds run ``index`` (None: nobody yet)."""
    try:
        return claim_path(folder, index).read_text(encoding="utf-8")
    except FileNotFoundError:
        return None


def claim_next(folder: Path, count: int, first: int, name: str) -> int | None:
    """Claim the next free run for ``name``, trying ``first`` before the others (so
    that workers starting together begin on different runs); None when all are held."""
    for offset in range(count):
        index = (first + offset) % count
        if not claim_path(folder, index).exists() and claim(folder, index, name):
            return index
    return None
