"""The bundled sample benchmark scored by ``eval --runtime apptainer``, locally and as
Slurm jobs: the designed verdicts, the same verdicts and run keys both ways."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from lmr_author.sandbox.apptainer import SIF_CACHE_ENV
from tests.cluster.slurm.conftest import jobs_of, slurm

pytestmark = [pytest.mark.docker, pytest.mark.apptainer, pytest.mark.slow]

__all__ = ["slurm"]

ROOT = Path(__file__).resolve().parents[3]
BENCHMARK = ROOT / "benchmark"
TASKS = ("02-BLEU", "03-TopP")
SYSTEMS = {"correct": "pass", "subtle-bug": "fail", "wrong-logic": "fail"}


def _eval(out: Path, sif_cache: Path, *options: str) -> dict[str, Any]:
    argv = [sys.executable, "-m", "lmr_author", "eval", str(BENCHMARK), "--output", str(out)]
    argv += ["--runtime", "apptainer", "--sif-cache", str(sif_cache), "--json", *options]
    for task in TASKS:
        argv += ["--task", task]
    for system in SYSTEMS:
        argv += ["--submission", str(BENCHMARK / "submissions" / system)]
    env = {k: v for k, v in os.environ.items() if k != SIF_CACHE_ENV}  # the option names it
    done = subprocess.run(argv, capture_output=True, text=True, timeout=1500, env=env)
    assert done.returncode in (0, 1), done.stderr
    results: dict[str, Any] = json.loads(done.stdout)
    return results


def _verdicts(results: dict[str, Any]) -> dict[tuple[str, str, int], str]:
    return {(r["system"], r["task"], r["implementation"]): r["verdict"] for r in results["runs"]}


@pytest.mark.slurm
def test_apptainer_gives_the_designed_verdicts_locally_and_through_slurm(
    tmp_path: Path, sif_cache: Path, slurm: None
) -> None:
    local = _eval(tmp_path / "local", sif_cache, "--workers", "2")
    for run in local["runs"]:
        assert run.get("infra_error") is None, run
        assert run["verdict"] == SYSTEMS[run["system"]] or (
            SYSTEMS[run["system"]] == "fail" and run["verdict"] == "error"
        ), run
    assert {name: s["accuracy"] for name, s in local["systems"].items()} == {
        "correct": 1.0,
        "subtle-bug": 0.0,
        "wrong-logic": 0.0,
    }
    assert sorted(p.name for p in sif_cache.iterdir() if p.suffix == ".sif")  # converted

    remote = _eval(tmp_path / "slurm", sif_cache, "--executor", "slurm", "--workers", "4")
    assert _verdicts(remote) == _verdicts(local)
    assert jobs_of(tmp_path / "slurm") == []
    for folder, executor in (("local", "local"), ("slurm", "slurm")):
        recorded = {
            (record["runtime"], record["executor"])
            for path in (tmp_path / folder / "runs").rglob("run.json")
            for record in [json.loads(path.read_text())]
        }
        assert recorded == {("apptainer", executor)}  # run.json says where and in what
    keys = {
        json.loads(p.read_text())["run_key"] for p in (tmp_path / "local" / "runs").rglob("*.json")
    }
    assert keys == {
        json.loads(p.read_text())["run_key"] for p in (tmp_path / "slurm" / "runs").rglob("*.json")
    }
