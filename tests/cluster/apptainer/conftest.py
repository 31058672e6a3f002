"""Runs in Apptainer for real: ``apptainer`` on PATH (``.ci/apptainer-setup``), images
built by the Docker engine and converted to SIF files in a cache of this session.

Every test here selects ``--runtime apptainer`` for its duration, so the adversarial
suite's own test functions (imported) run their candidates under Apptainer. Skips
without Apptainer on a laptop; fails in CI.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from lmr_author.runtime import engine
from lmr_author.sandbox.apptainer import SIF_CACHE_ENV
from tests.adversarial.conftest import replay_task, unittest_task
from tests.conftest import IN_CI

__all__ = ["replay_task", "sif_cache", "unittest_task", "use_apptainer"]


@pytest.fixture(scope="session")
def sif_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Apptainer itself, and a SIF cache of this session (named as users name theirs)."""
    if shutil.which("apptainer") is None:
        if IN_CI:
            pytest.fail("CI=true but apptainer is not on PATH (.ci/apptainer-setup)")
        pytest.skip("no apptainer on PATH (.ci/apptainer-setup installs it)")
    problem = _cannot_run(tmp_path_factory.mktemp("probe"))
    if problem:  # e.g. inside an unprivileged container: no namespaces, no mounts
        if IN_CI:
            pytest.fail(f"CI=true but apptainer cannot run a container here: {problem}")
        pytest.skip(f"apptainer cannot run a container here: {problem}")
    # One cache for every xdist worker of the session (the base temp's parent is theirs
    # in common): each image is converted once, as on a cluster's shared file system.
    folder = tmp_path_factory.getbasetemp().parent / "sif-cache"
    folder.mkdir(exist_ok=True)
    before = os.environ.get(SIF_CACHE_ENV)
    os.environ[SIF_CACHE_ENV] = str(folder)
    yield folder
    if before is None:
        os.environ.pop(SIF_CACHE_ENV, None)
    else:
        os.environ[SIF_CACHE_ENV] = before


@pytest.fixture(autouse=True)
def use_apptainer(sif_cache: Path) -> Iterator[None]:
    """``--runtime apptainer`` for the test's duration (the runner reads the selection)."""
    before = engine.selected_runtime()
    engine.use_runtime("apptainer")
    yield
    engine.use_runtime(before)


def _cannot_run(root: Path) -> str:
    """Why Apptainer cannot run a container with our flags here ("" if it can): a tiny
    root file system holding /bin/true and the libraries it loads."""
    linked = subprocess.run(["ldd", "/bin/true"], capture_output=True, text=True).stdout
    for library in re.findall(r"(/\S+) \(0x", linked):
        target = root / library.lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(library, target)
    (root / "bin").mkdir(exist_ok=True)
    shutil.copy("/bin/true", root / "bin" / "true")
    for folder in ("dev", "proc", "sys", "tmp", "etc", "var/tmp", "root", "home"):
        (root / folder).mkdir(parents=True, exist_ok=True)
    argv = ["apptainer", "--quiet", "exec", "--containall", "--no-privs", "--net"]
    argv += ["--network", "none", "--writable-tmpfs", "--memory", "100000000"]
    argv += ["--memory-swap", "100000000", "--pids-limit", "16", str(root), "/bin/true"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    return "" if done.returncode == 0 else " ".join(done.stderr.split())[-300:]
