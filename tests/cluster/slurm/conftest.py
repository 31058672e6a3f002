"""A real Slurm cluster (``.ci/slurm-setup``): skips without one on a laptop; fails in CI."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from tests.conftest import IN_CI
from tests.support.sandbox_fixtures import no_leftovers

__all__ = ["jobs_of", "no_leftovers", "slurm"]


@pytest.fixture(scope="session")
def slurm() -> None:
    """A controller that answers and a node that takes jobs."""
    try:
        states = subprocess.run(
            ["sinfo", "-h", "-o", "%t"], capture_output=True, text=True, timeout=30, check=True
        ).stdout.split()
    except (OSError, subprocess.SubprocessError) as error:
        if IN_CI:
            pytest.fail(f"CI=true but Slurm does not answer (run .ci/slurm-setup): {error}")
        pytest.skip(f"no Slurm cluster: {error}")
    # "comp" (completing) is a node finishing another test's job: it takes jobs again
    # in a moment, so wait a little for a usable state before calling the cluster broken.
    deadline = time.monotonic() + 60
    while not any(state.rstrip("*") in ("idle", "mix", "alloc", "comp") for state in states):
        if time.monotonic() > deadline:
            pytest.fail(f"Slurm answers but no node takes jobs: {states}")
        time.sleep(1)
        states = subprocess.run(
            ["sinfo", "-h", "-o", "%t"], capture_output=True, text=True, timeout=30, check=True
        ).stdout.split()


def jobs_of(folder: Path) -> list[str]:
    """Jobs still queued or running whose script lives under ``folder``."""
    out = subprocess.run(
        ["squeue", "-h", "-r", "-o", "%i %o"], capture_output=True, text=True, check=True
    ).stdout
    return [line for line in out.splitlines() if str(folder) in line]
