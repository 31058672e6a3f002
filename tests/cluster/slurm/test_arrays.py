"""How ``eval --executor slurm`` asks a real cluster for its runs: the whole evaluation
as ONE array of ``--max-in-flight`` workers, with the memory, walltime and account the command
gave (or the run's own limits), as ``scontrol show job`` reports them; verdicts and run
keys those of the local executor. ``sbatch`` on PATH is a recorder in front of the real
one: it logs each command line and what ``scontrol show job`` says of the job at once.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.cluster.slurm.conftest import jobs_of

pytestmark = [
    pytest.mark.docker,
    pytest.mark.slurm,
    pytest.mark.slow,
    pytest.mark.usefixtures("slurm", "no_leftovers"),
]

ROOT = Path(__file__).resolve().parents[3]
BENCHMARK = ROOT / "benchmark"
SYSTEMS = ("correct", "subtle-bug", "wrong-logic")

RECORDER = """\
#!{python}
import json, subprocess, sys

done = subprocess.run([{real!r}, *sys.argv[1:]], capture_output=True, text=True)
shown = ""
if done.returncode == 0 and "--test-only" not in sys.argv:
    job = done.stdout.strip().split(";")[0]
    shown = subprocess.run(["scontrol", "show", "job", job], capture_output=True,
                           text=True).stdout
with open({log!r}, "a") as log:
    log.write(json.dumps({{"argv": sys.argv[1:], "job": shown}}) + "\\n")
sys.stdout.write(done.stdout)
sys.stderr.write(done.stderr)
sys.exit(done.returncode)
"""


def _recorder(tmp_path: Path) -> tuple[dict[str, str], Path]:
    """The environment whose ``sbatch`` records, and the record."""
    real = shutil.which("sbatch")
    assert real is not None
    folder = tmp_path / "bin"
    folder.mkdir()
    log = tmp_path / "sbatch.log"
    script = folder / "sbatch"
    script.write_text(RECORDER.format(python=sys.executable, log=str(log), real=real))
    script.chmod(0o755)
    env = dict(__import__("os").environ, PATH=f"{folder}:{Path(real).parent}:/usr/bin:/bin")
    return env, log


def _eval(out: Path, *extra: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    argv = [sys.executable, "-m", "lmr_author", "eval", str(BENCHMARK), "--output", str(out)]
    for system in SYSTEMS:
        argv += ["-s", str(BENCHMARK / "submissions" / system)]
    done = subprocess.run(
        [*argv, "--json", *extra],
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    data: dict[str, Any] = json.loads(done.stdout)
    return data


def _submitted(log: Path) -> list[dict[str, Any]]:
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    return [call for call in calls if "--test-only" not in call["argv"]]


def _megabytes(size: str) -> float:
    """scontrol's memory (``1700M``, ``1.50G``) in MB."""
    scale = {"K": 1 / 1024, "M": 1, "G": 1024, "T": 1024 * 1024}
    return float(size[:-1]) * scale[size[-1]]


def _field(shown: str, name: str) -> str:
    """``NAME=value`` out of ``scontrol show job``."""
    for word in shown.split():
        if word.startswith(f"{name}="):
            return word.split("=", 1)[1]
    raise AssertionError(f"{name} not in {shown}")


def test_a_whole_evaluation_is_one_throttled_array_with_the_options_given(
    tmp_path: Path,
) -> None:
    env, log = _recorder(tmp_path)
    local = _eval(tmp_path / "local", "--executor", "local")
    remote = _eval(
        tmp_path / "slurm",
        "--executor",
        "slurm",
        "--mem",
        "1700M",
        "--time",
        "47",
        "--account",
        "lmr-test-lab",
        "--max-in-flight",
        "2",
        env=env,
    )

    runs = len(local["runs"])
    assert runs == 24
    [call] = _submitted(log)  # not one sbatch per run or two
    assert "--array=0-1" in call["argv"]  # two workers share the 24 runs
    shown = call["job"]
    assert _field(shown, "Account") == "lmr-test-lab"
    assert _field(shown, "TimeLimit") == "00:47:00"
    assert _megabytes(_field(shown, "MinMemoryNode")) == 1700
    by_run = {(r["system"], r["task"], r["implementation"]): r for r in remote["runs"]}
    for run in local["runs"]:
        other = by_run[(run["system"], run["task"], run["implementation"])]
        assert (other["run_key"], other["verdict"]) == (run["run_key"], run["verdict"])
    assert local["systems"] == remote["systems"]
    assert jobs_of(tmp_path) == []


def test_memory_and_time_come_from_the_runs_limits_when_not_given(tmp_path: Path) -> None:
    env, log = _recorder(tmp_path)
    _eval(
        tmp_path / "out",
        "--task",
        "03-TopP",
        "--timeout",
        "100",
        "--executor",
        "slurm",
        env=env,
    )

    [call] = _submitted(log)
    # The sandbox's 1024 MB plus the 512 MB margin; 3 x 100 s + 10 min = 15 min.
    assert _megabytes(_field(call["job"], "MinMemoryNode")) == 1536
    assert _field(call["job"], "TimeLimit") == "00:15:00"
    # Three runs, on a cluster with room for at least one at a time: a throttle of
    # the partition's CPUs (one per run).
    cpus = int(
        subprocess.run(
            ["sinfo", "-h", "-o", "%C"], capture_output=True, text=True, check=True
        ).stdout.split("/")[-1]
    )
    assert f"--array=0-{min(3, cpus) - 1}" in call["argv"]
    assert jobs_of(tmp_path) == []
    # Workers that ran out of runs end by themselves: COMPLETED, not CANCELLED by us.
    job = _field(call["job"], "JobId")
    shown = subprocess.run(
        ["scontrol", "show", "job", job], capture_output=True, text=True, check=True
    ).stdout
    states = [_field(block, "JobState") for block in shown.split("\n\n") if block.strip()]
    assert states and set(states) == {"COMPLETED"}, states
    # A run records when its worker started it and what it took there; the queue apart.
    for path in (tmp_path / "out" / "runs").glob("*/*/*/run.json"):
        record = json.loads(path.read_text())
        assert isinstance(record["queued_s"], float) and record["queued_s"] >= 0, record
        assert record["duration_s"] < 120 and record["executor"] == "slurm"


@pytest.mark.parametrize(
    ("option", "named"),
    [
        (["--sbatch-arg=--constraint=no-such-feature"], "--constraint=no-such-feature"),
        (["--mem", "900T"], "--mem=900T"),
        (["--sbatch-arg=--array=0-3"], None),
    ],
    ids=["passthrough", "memory", "ours"],
)
def test_an_option_slurm_refuses_is_named_before_any_build(
    tmp_path: Path, option: list[str], named: str | None
) -> None:
    out = tmp_path / "out"
    argv = [sys.executable, "-m", "lmr_author", "eval", str(BENCHMARK), "--output", str(out)]
    argv += ["-s", str(BENCHMARK / "submissions" / "correct"), "--executor", "slurm", *option]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300, check=False)

    assert done.returncode == 2, done.stderr
    if named is None:  # an option lmr-author sets itself: not the user's to replace
        assert "lmr-author sets --array" in done.stderr
    else:
        assert f"Slurm refuses {named}" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (out / "runs").exists()
