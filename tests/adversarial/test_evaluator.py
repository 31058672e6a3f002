"""The evaluator itself under attack: SIGKILL mid-run, Ctrl-C twice.

Time and clean-up must not depend on our process staying alive: a killed evaluation's
containers are found and removed by the next start (which says how many), and those of
a live evaluation are never touched. A second Ctrl-C kills the running containers at
once and exits 130; finished runs stay, the cut one runs again on resume.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lmr_author.cli import main
from lmr_author.domain.task import Task
from lmr_author.runtime import DEADLINE_LABEL, HOST_LABEL, KIND_RUN, LABEL_KEY, OWNER_LABEL
from tests.support.sandbox_tasks import write_task

pytestmark = [pytest.mark.docker, pytest.mark.usefixtures("no_leftovers")]

ROOT = Path(__file__).resolve().parents[2]
SLEEPER = b"import time\ntime.sleep(120)\n\ndef add(a, b):\n    return a + b\n"


def _submission(root: Path, task: Task, goal: bytes, name: str) -> Path:
    folder = root / name
    target = folder / task.name / task.repo_folder_name / "calc.py"
    target.parent.mkdir(parents=True)
    target.write_bytes(goal)
    return folder


def _owned_by(client: Any, pid: int) -> list[Any]:
    return list(client.api.containers(all=True, filters={"label": [f"{OWNER_LABEL}={pid}"]}))


def _eval_process(bench: Path, sub: Path, out: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        [sys.executable, "-m", "lmr_author", "eval", str(bench), "-s", str(sub), "-o", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def _wait_for_sleeper(client: Any, pid: int, timeout: float = 120) -> None:
    """Until a container of ``pid`` has been running for 2 s: the sleeper, not the short
    golden proof run that may come first."""
    deadline = time.monotonic() + timeout
    first_seen: dict[str, float] = {}
    while time.monotonic() < deadline:
        for container in _owned_by(client, pid):
            if container.get("State") == "running":
                since = first_seen.setdefault(container["Id"], time.monotonic())
                if time.monotonic() - since >= 2.0:
                    return
        time.sleep(0.2)
    raise AssertionError(f"no long-running container of pid {pid}")


@pytest.fixture
def bench(tmp_path: Path, image_cleanup: None) -> Iterator[tuple[Path, Task]]:
    task = write_task(tmp_path / "bench", tag="evalkill")
    yield tmp_path / "bench", task


@pytest.fixture
def live_stranger(docker_client: Any, bench: tuple[Path, Task]) -> Iterator[str]:
    """A run container of another live evaluation (a sleeping process of ours)."""
    _, task = bench
    owner = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
    from lmr_author.images.task_images import ensure_image

    image = ensure_image(task, client=docker_client)
    container = docker_client.containers.create(
        image.image_id,
        command=["sleep", "300"],
        labels={
            LABEL_KEY: KIND_RUN,
            "org.lmr-author.task": task.name,
            OWNER_LABEL: str(owner.pid),
            HOST_LABEL: __import__("socket").gethostname(),
            DEADLINE_LABEL: str(int(time.time() + 600)),
        },
    )
    try:
        yield container.id
    finally:
        container.remove(force=True)
        owner.kill()
        owner.wait()


def test_sigkill_of_the_evaluator_is_cleaned_by_the_next_start(
    docker_client: Any,
    bench: tuple[Path, Task],
    live_stranger: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    folder, task = bench
    sleeper = _submission(tmp_path / "subs", task, SLEEPER, "sleeper")
    process = _eval_process(folder, sleeper, tmp_path / "out-killed")
    try:
        _wait_for_sleeper(docker_client, process.pid)
    finally:
        process.kill()  # SIGKILL: nothing of ours runs any more
        process.communicate(timeout=30)
    assert _owned_by(docker_client, process.pid), "the killed run's container should outlive it"

    golden = task.implementations[0].golden_path.read_bytes()
    good = _submission(tmp_path / "subs", task, golden, "good")
    assert main(["eval", str(folder), "-s", str(good), "-o", str(tmp_path / "out")]) == 0
    captured = capsys.readouterr()
    said = " ".join((captured.out + captured.err).split())  # the console may wrap the line
    # Under pytest-xdist an evaluation of another test process may sweep it first (any
    # evaluation sweeps every dead one's containers); either way it must be gone now.
    # (An isolated run is two containers: the test's and the candidate's.)
    swept_here = re.search(r"removed [12] container\(s\) left by evaluations that died", said)
    assert swept_here or "removed" not in said
    assert _owned_by(docker_client, process.pid) == []
    # Another live evaluation's container is never touched.
    assert docker_client.api.inspect_container(live_stranger)["Id"] == live_stranger


def test_second_ctrl_c_kills_the_running_containers_and_exits_130(
    docker_client: Any, bench: tuple[Path, Task], tmp_path: Path
) -> None:
    folder, task = bench
    sleeper = _submission(tmp_path / "subs", task, SLEEPER, "sleeper")
    out = tmp_path / "out"
    process = _eval_process(folder, sleeper, out)
    try:
        _wait_for_sleeper(docker_client, process.pid)
        process.send_signal(signal.SIGINT)
        time.sleep(1.0)
        assert process.poll() is None, "one Ctrl-C waits for the running run"
        begun = time.monotonic()
        process.send_signal(signal.SIGINT)
        _stdout, stderr = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130, stderr
    assert time.monotonic() - begun < 30
    assert "Traceback" not in stderr
    assert _owned_by(docker_client, process.pid) == []
    assert not list(out.glob("runs/*/*/*/run.json")), "the killed run must run again"
    shutil.rmtree(out)
