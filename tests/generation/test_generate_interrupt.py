"""Ctrl-C during `generate`: whole lines only in the predictions file, and the next run
asks only what was not answered.

The server holds the third request until the child has been interrupted: Ctrl-C lands
mid-run however slow the machine, and the child must exit without waiting for the
answer on the wire (a ThreadPoolExecutor, joined at exit, hung here until its time-out)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from lmr_author.cli import main
from tests.generation.generate_support import ROOT, SAMPLE, answering, correct_sources
from tests.support.openai_server import OpenAIServer, RecordedRequest, Reply


def test_ctrl_c_keeps_the_answers_so_far_and_the_rerun_resumes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    answer = answering(correct_sources())
    # Two answers go out at once; the third waits until the child was interrupted, so
    # the Ctrl-C always lands mid-run, however slow the machine.
    answered = 0
    counting = threading.Lock()
    interrupted = threading.Event()

    def slow(request: RecordedRequest) -> Reply:
        nonlocal answered
        with counting:
            answered += 1
            mine = answered
        if mine > 2:
            interrupted.wait(timeout=120)
        reply: Reply = answer(request)
        return reply

    out = tmp_path / "p.jsonl"
    with OpenAIServer(slow) as server:
        argv = ["generate", str(SAMPLE), "--out", str(out), "--base-url", server.base_url,
                "--model", "m", "--system", "base", "--concurrency", "1"]  # fmt: skip
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        child = subprocess.Popen(
            [sys.executable, "-m", "lmr_author", *argv], env=env, cwd=tmp_path,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )  # fmt: skip
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if out.exists() and len(out.read_text().splitlines()) >= 2:
                break
            time.sleep(0.05)
        child.send_signal(signal.SIGINT)
        _, err = child.communicate(timeout=60)
        interrupted.set()
        assert child.returncode == 130, err
        lines = out.read_text().splitlines()
        assert len(lines) == 2
        assert all(json.loads(line)["source"] for line in lines)  # whole records only
        asked_before = server.request_count

        assert main([*argv, "--json"]) == 0
        summary = json.loads(capsys.readouterr().out)
        assert summary["kept"] + summary["cached"] == 8 - summary["asked"]
        assert summary["kept"] >= len(lines)
        assert (
            server.request_count - asked_before
            == summary["asked"]
            == 8 - summary["kept"] - summary["cached"]
        )
        assert len(out.read_text().splitlines()) == 8
