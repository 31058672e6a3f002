"""The published LMR-Bench test shape, scored by ``eval --runtime podman``.

Its tests open their log in ``unit_test/logs`` at import: Podman must give that tmpfs to
the test user (the ``U`` option, not ``uid=``/``gid=``), or every published test errors.
The golden file passes, the masked and wrong ones fail, and the log forgeries of the
Docker suite (a symlinked log, a filter on "Failed") do not pass.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.sandbox.test_published_protocol import FORGERIES
from tests.support.published_task import (
    GOLDEN,
    GOLDEN_PASSED,
    MASKED,
    WRONG,
    write_published_task,
    write_submission,
)
from tests.support.sandbox_tasks import task_name

pytestmark = [
    pytest.mark.docker,
    pytest.mark.podman,
    pytest.mark.usefixtures("image_cleanup", "no_leftovers"),
]


def test_published_shape_in_podman(tmp_path: Path, docker_client: Any) -> None:
    bench = tmp_path / "bench"
    bench.mkdir()
    task_dir = write_published_task(bench, task_name("PubPodman"))
    subs = tmp_path / "subs"
    sources = {"golden": GOLDEN, "masked": MASKED, "wrong": WRONG}
    sources |= {f"forge-{name}": FORGERIES[name] for name in ("symlink", "filter")}
    out = tmp_path / "out"
    argv = [sys.executable, "-m", "lmr_author", "eval", str(bench), "--runtime", "podman"]
    argv += ["--output", str(out), "--workers", "2", "--timeout", "60", "--json"]
    for system, source in sources.items():
        argv += ["-s", str(write_submission(subs, system, task_dir, source))]

    done = subprocess.run(argv, capture_output=True, text=True, timeout=900, check=False)

    assert done.returncode in (0, 1), done.stderr
    runs = {run["system"]: run for run in json.loads(done.stdout)["runs"]}
    assert runs["golden"]["verdict"] == "pass", runs["golden"]
    assert runs["masked"]["verdict"] != "pass"
    assert runs["wrong"]["verdict"] == "fail", runs["wrong"]
    assert "Failed" in runs["wrong"]["reason"], runs["wrong"]
    for name in ("forge-symlink", "forge-filter"):
        assert runs[name]["verdict"] != "pass", runs[name]
    log = out / "runs" / "golden" / task_dir.name / "1" / "logs" / "unit_test_1.log"
    assert log.read_text().count("Test Passed") == GOLDEN_PASSED
