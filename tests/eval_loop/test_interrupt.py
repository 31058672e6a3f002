"""SIGINT: stop dispatching, keep finished runs, resume to the uninterrupted results."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.eval_loop.evaltasks import CORRECT, WRONG, make_benchmark, make_folder_submission

DRIVER = Path(__file__).resolve().parent / "sigint_driver.py"
NAMES = ("01-Add", "02-Calc", "03-More", "04-Four")


def _outcome(out: Path) -> dict[str, object]:
    results = json.loads((out / "results.json").read_text())
    runs = {
        (r["system"], r["task"], r["implementation"]): (r["run_key"], r["verdict"], r["reason"])
        for r in results["runs"]
    }
    return {"runs": runs, "systems": results["systems"]}


def test_sigint_keeps_finished_runs_and_resume_matches(tmp_path: Path) -> None:
    bench = make_benchmark(tmp_path, NAMES, sleep=0.4)
    sub = make_folder_submission(
        tmp_path / "subs", "mixed", {"01-Add": CORRECT, "02-Calc": WRONG, "03-More": CORRECT}
    )
    args = [sys.executable, str(DRIVER), str(bench), str(sub)]

    reference = tmp_path / "reference"
    done = subprocess.run([*args, str(reference), "2"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr

    out = tmp_path / "out"
    process = subprocess.Popen(
        [*args, str(out), "1"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    deadline = time.monotonic() + 60
    while not list(out.glob("runs/*/*/*/run.json")) and time.monotonic() < deadline:
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    assert "interrupt received" in stdout
    assert "Traceback" not in stderr
    finished = list(out.glob("runs/*/*/*/run.json"))
    assert 1 <= len(finished) < 8, "the interrupt came too late to test anything"
    assert not list(out.rglob("*.tmp"))
    interrupted = json.loads((out / "results.json").read_text())
    assert interrupted["interrupted"] is True
    assert len(interrupted["runs"]) == len(finished)

    again = subprocess.run([*args, str(out), "2"], capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr
    assert _outcome(out) == _outcome(reference)
