"""The bundled sample benchmark, scored by ``eval --runtime podman``: verdicts as designed.

The sample systems are made to pass (correct) or fail (subtle-bug, wrong-logic) every
task; Podman must give exactly those verdicts and no infrastructure errors. Two tasks
keep the run short on a shared machine.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lmr_author.runtime import TASK_LABEL

pytestmark = [pytest.mark.docker, pytest.mark.podman, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[3]
BENCHMARK = ROOT / "benchmark"
TASKS = ("02-BLEU", "03-TopP")
SYSTEMS = {"correct": "pass", "subtle-bug": "fail", "wrong-logic": "fail"}


@pytest.fixture
def podman_images(docker_client: Any) -> Iterator[None]:
    """Remove the sample tasks' images from Podman's store afterwards."""
    yield
    for name in TASKS:
        for image in docker_client.images.list(filters={"label": f"{TASK_LABEL}={name}"}):
            docker_client.images.remove(image.id, force=True)


def test_sample_benchmark_in_podman_gives_the_designed_verdicts(
    tmp_path: Path, docker_client: Any, podman_images: None, no_leftovers: None
) -> None:
    out = tmp_path / "out"
    argv = [sys.executable, "-m", "lmr_author", "eval", str(BENCHMARK), "--runtime", "podman"]
    argv += ["--output", str(out), "--workers", "2", "--json"]
    for task in TASKS:
        argv += ["--task", task]
    for system in SYSTEMS:
        argv += ["--submission", str(BENCHMARK / "submissions" / system)]

    done = subprocess.run(argv, capture_output=True, text=True, timeout=1200, check=False)

    assert done.returncode in (0, 1), done.stderr
    results = json.loads(done.stdout)
    runs = results["runs"]
    assert {r["task"] for r in runs} == set(TASKS)
    for run in runs:
        expected = SYSTEMS[run["system"]]
        got = run["verdict"]
        said = f"{run['task']} {run['system']}: {got} ({run['reason']})"
        assert got == expected or (expected == "fail" and got in ("fail", "error")), said
    assert results["systems"]["correct"]["accuracy"] == 1.0
    assert results["systems"]["subtle-bug"]["accuracy"] == 0.0
    assert results["systems"]["wrong-logic"]["accuracy"] == 0.0
