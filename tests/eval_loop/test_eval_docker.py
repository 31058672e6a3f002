"""`lmr-author eval` against the real Docker sandbox: verdicts, images once, resume, SIGINT."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lmr_author.cli import main
from lmr_author.runtime import KIND_RUN, LABEL_KEY, TASK_LABEL
from tests.eval_loop.evaltasks import (
    CORRECT,
    WRONG,
    function_source,
    make_benchmark,
    make_folder_submission,
)

pytestmark = [pytest.mark.docker, pytest.mark.slow]

LOOPS = CORRECT.replace("return a + b", "while True:\n        pass")


def _names(prefix: str) -> tuple[str, str]:
    # task names are image and container labels: make ours unique to this session
    tag = uuid.uuid4().hex[:6]
    return (f"91-{prefix}{tag}A", f"92-{prefix}{tag}B")


@pytest.fixture
def cleanup(docker_client: Any) -> Iterator[list[str]]:
    """Task names whose images (and any containers) are removed after the test."""
    names: list[str] = []
    yield names
    for name in names:
        for container in docker_client.containers.list(
            all=True, filters={"label": f"{TASK_LABEL}={name}"}
        ):
            container.remove(force=True)
        for image in docker_client.images.list(filters={"label": f"{TASK_LABEL}={name}"}):
            docker_client.images.remove(image.id, force=True)


def _our_containers(client: Any, names: tuple[str, ...]) -> list[Any]:
    found = []
    for name in names:
        found += client.containers.list(
            all=True, filters={"label": [f"{TASK_LABEL}={name}", f"{LABEL_KEY}={KIND_RUN}"]}
        )
    return found


def test_eval_scores_submissions_in_docker(
    tmp_path: Path,
    docker_client: Any,
    cleanup: list[str],
    capsys: pytest.CaptureFixture[str],
) -> None:
    names = _names("Ev")
    cleanup.extend(names)
    bench = make_benchmark(tmp_path, names)
    subs = tmp_path / "subs"
    good = make_folder_submission(subs, "good", dict.fromkeys(names, CORRECT))
    bad = make_folder_submission(subs, "bad", {names[0]: WRONG, names[1]: LOOPS})
    preds = tmp_path / "preds.jsonl"
    preds.write_text(
        json.dumps(
            {
                "task": names[0],
                "implementation": 1,
                "system": "base",
                "source": function_source("add", "return a + b"),
            }
        )
        + "\n"
        + json.dumps(
            {"task": names[0], "implementation": 2, "system": "base", "source": "def mul("}
        )
        + "\n"
    )
    out = tmp_path / "out"
    argv = ["eval", str(bench), "--output", str(out), "--workers", "2", "--timeout", "20"]
    argv += ["-s", str(good), "-s", str(bad), "-s", str(preds), "--json"]

    code = main(argv)
    captured = capsys.readouterr()
    assert code == 0, captured.err
    results = json.loads(captured.out)
    verdicts = {
        (r["system"], r["task"], r["implementation"]): r["verdict"] for r in results["runs"]
    }
    not_passed = [
        (r["task"], r["implementation"], r["verdict"], r["reason"])
        for r in results["runs"]
        if r["system"] == "good" and r["verdict"] != "pass"
    ]
    assert not_passed == []  # every run of the correct system passes
    assert verdicts[("bad", names[0], 1)] == "fail"
    assert verdicts[("bad", names[1], 1)] == "timeout"  # add loops forever
    assert verdicts[("bad", names[1], 2)] == "pass"  # mul is right
    assert verdicts[("base", names[0], 1)] == "pass"
    assert verdicts[("base", names[0], 2)] == "error"  # cannot be spliced
    assert verdicts[("base", names[1], 1)] == "error"  # no submission
    assert results["systems"]["good"]["accuracy"] == 1.0
    assert results["systems"]["bad"]["accuracy"] == 0.25
    assert results["systems"]["base"]["accuracy"] == 0.25
    log = out / "runs" / "good" / names[0] / "1" / "logs" / "unit_test_1.log"
    assert "Test Passed" in log.read_text()
    assert _our_containers(docker_client, names) == []
    for name in names:  # one image per task
        images = docker_client.images.list(filters={"label": f"{TASK_LABEL}={name}"})
        assert len(images) == 1

    # a rerun finds every run done: nothing runs, same results
    start = time.monotonic()
    assert main(argv) == 0
    again = json.loads(capsys.readouterr().out)
    assert time.monotonic() - start < 10
    assert again["runs"] == results["runs"]

    # --force runs again the unchanged runs, of the tasks --task names only
    def runs() -> dict[tuple[str, str, int], dict[str, Any]]:
        data = json.loads((out / "results.json").read_text())
        return {(r["system"], r["task"], r["implementation"]): r for r in data["runs"]}

    before = runs()
    assert main([*argv, "--force", "--task", names[0]]) == 0
    capsys.readouterr()
    forced = runs()
    redone = {key for key in before if forced[key]["started_at"] != before[key]["started_at"]}
    assert {task for _, task, _ in redone} == {names[0]}
    assert {key for key in redone if before[key]["image_id"]} == {
        key for key in before if key[1] == names[0] and before[key]["image_id"]
    }

    # --base-image: the task's image is built from it instead, so its runs are new ones
    alias = f"lmr-test-base-{uuid.uuid4().hex[:8]}:1"
    docker_client.images.get("python:3.11-slim").tag(alias)
    try:
        assert main([*argv, "--task", names[0], "--base-image", alias]) == 0
    finally:
        docker_client.images.remove(alias)  # the tag only: the image has others
    capsys.readouterr()
    rebased = runs()
    changed = {key for key in forced if rebased[key]["run_key"] != forced[key]["run_key"]}
    assert changed and changed == {
        key for key in forced if key[1] == names[0] and forced[key]["image_id"]
    }
    for key in changed:
        assert rebased[key]["image_id"] != forced[key]["image_id"]


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "lmr_author", "eval", *args]


def _outcome(out: Path) -> dict[tuple[str, str, int], tuple[str, str]]:
    results = json.loads((out / "results.json").read_text())
    return {
        (r["system"], r["task"], r["implementation"]): (r["run_key"], r["verdict"])
        for r in results["runs"]
    }


def test_sigint_then_rerun_equals_uninterrupted_run(
    tmp_path: Path, docker_client: Any, cleanup: list[str]
) -> None:
    names = _names("Int")
    cleanup.extend(names)
    bench = make_benchmark(tmp_path, names, sleep=1.5)
    sub = make_folder_submission(tmp_path / "subs", "mixed", {names[0]: CORRECT, names[1]: WRONG})
    env = dict(os.environ, NO_COLOR="1")

    reference = tmp_path / "reference"
    done = subprocess.run(
        _cli(str(bench), "-s", str(sub), "-o", str(reference), "-j", "2"),
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert done.returncode == 0, done.stderr

    out = tmp_path / "out"
    process = subprocess.Popen(
        _cli(str(bench), "-s", str(sub), "-o", str(out), "-j", "1"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    deadline = time.monotonic() + 120
    while not list(out.glob("runs/*/*/*/run.json")) and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(0.3)  # let the next run's container start
    process.send_signal(signal.SIGINT)
    _stdout, stderr = process.communicate(timeout=120)
    assert process.returncode == 130, stderr
    assert "Traceback" not in stderr
    finished = list(out.glob("runs/*/*/*/run.json"))
    assert 1 <= len(finished) < 4
    assert not list(out.rglob("*.tmp"))
    assert json.loads((out / "results.json").read_text())["interrupted"] is True
    assert _our_containers(docker_client, names) == []

    again = subprocess.run(
        _cli(str(bench), "-s", str(sub), "-o", str(out), "-j", "2"),
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert again.returncode == 0, again.stderr
    assert _outcome(out) == _outcome(reference)
    assert _our_containers(docker_client, names) == []
