"""Slurm + Apptainer where the nodes have no Docker engine: the submitter converts each
task image to a SIF in the shared cache while preparing, and a node runs that SIF alone.

The jobs get ``DOCKER_HOST`` pointing at a socket nobody serves (set by an ``sbatch`` in
front of the real one, whose environment the jobs inherit), so any engine call on the
node fails.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from lmr_author.sandbox.apptainer import SIF_CACHE_ENV
from tests.cluster.slurm.conftest import jobs_of, slurm

pytestmark = [pytest.mark.docker, pytest.mark.apptainer, pytest.mark.slurm, pytest.mark.slow]

__all__ = ["slurm"]

BENCHMARK = Path(__file__).resolve().parents[3] / "benchmark"
TASK = "03-TopP"


def _eval(tmp_path: Path, sif_cache: Path, before_jobs: str) -> dict[str, Any]:
    real = shutil.which("sbatch")
    assert real is not None
    wrapper = tmp_path / "bin" / "sbatch"
    wrapper.parent.mkdir(exist_ok=True)
    # The options checked before anything is built (--test-only) are no submission.
    wrapper.write_text(
        f'#!/bin/sh\ncase " $* " in *" --test-only "*) exec {real} "$@" ;; esac\n'
        f"{before_jobs}\n"
        f"DOCKER_HOST=unix://{tmp_path}/no-engine.sock; export DOCKER_HOST\n"
        f'exec {real} "$@"\n'
    )
    wrapper.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k != SIF_CACHE_ENV}
    env["PATH"] = f"{wrapper.parent}:{env['PATH']}"
    argv = [sys.executable, "-m", "lmr_author", "eval", str(BENCHMARK), "--task", TASK]
    argv += ["--runtime", "apptainer", "--sif-cache", str(sif_cache), "--json"]
    argv += ["--executor", "slurm", "--output", str(tmp_path / "out"), "--force"]
    for system in ("correct", "wrong-logic"):
        argv += ["--submission", str(BENCHMARK / "submissions" / system)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=900, env=env)
    assert done.returncode in (0, 1), done.stderr
    results: dict[str, Any] = json.loads(done.stdout)
    assert jobs_of(tmp_path) == []
    return results


def test_a_node_without_docker_runs_the_cached_sif(
    tmp_path: Path, sif_cache: Path, slurm: None
) -> None:
    results = _eval(tmp_path, sif_cache, "")
    verdicts = {run["system"]: run["verdict"] for run in results["runs"]}
    assert verdicts == {"correct": "pass", "wrong-logic": "fail"}, results["runs"]


def test_without_its_sif_such_a_node_says_what_to_do(
    tmp_path: Path, sif_cache: Path, slurm: None
) -> None:
    """The SIF gone before the jobs run: an infrastructure error, not a verdict."""
    hidden = tmp_path / "hidden"
    results = _eval(
        tmp_path, sif_cache, f"mkdir -p {hidden}; mv {sif_cache}/*.sif {hidden}/ 2>/dev/null"
    )
    try:
        for run in results["runs"]:
            assert run["verdict"] == "infra-error", run
            assert "no SIF of image" in run["reason"] and "no Docker" in run["reason"], run
    finally:
        for sif in hidden.glob("*.sif"):
            shutil.move(str(sif), sif_cache / sif.name)
