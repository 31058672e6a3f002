"""A whole evaluation whose engine freezes mid-run: the run becomes an infra-error that
says what happened (never a verdict), its container goes when the engine answers
again, and resuming runs it and stores the candidate's real verdict.

The engine is reached through a proxy socket the test controls (`EngineProxy`): the
freeze lands on the candidate's wait, after the golden proof's, with no timing window.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import docker
import pytest

from lmr_author.eval_loop import Submission, run_evaluation
from lmr_author.eval_loop.backend import DockerBackend
from lmr_author.eval_output import RunRecord, load_runs
from lmr_author.sandbox.container_life import lost_containers
from tests.support.engine_proxy import EngineProxy, cut_waits
from tests.support.sandbox_tasks import GOLDEN, leftover_containers, write_task

pytestmark = [pytest.mark.docker, pytest.mark.usefixtures("no_leftovers", "image_cleanup")]


def test_a_frozen_engine_is_an_infra_error_then_resume_gives_the_verdict(
    tmp_path: Path, docker_client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    cut_waits(monkeypatch)
    task = write_task(tmp_path / "bench", tag="frozen")
    goal = tmp_path / "subs" / "golden" / task.name / task.repo_folder_name / "calc.py"
    goal.parent.mkdir(parents=True)
    goal.write_text(GOLDEN)
    socket_path = Path(f"/tmp/lmr-proxy-{uuid.uuid4().hex[:8]}.sock")
    proxy = EngineProxy(socket_path)
    client = docker.DockerClient(base_url=proxy.url, timeout=60)
    out = tmp_path / "out"
    notices: list[str] = []
    try:
        # The golden proof's wait goes through; the candidate's freezes the engine.
        proxy.on(r"POST .*/containers/\w+/wait", "freeze", after=1)

        def thaw(record: RunRecord, _skipped: bool) -> None:
            proxy.thaw()  # the engine is back once the run was written

        first = DockerBackend(timeout_s=4, client=client)
        run_evaluation(
            tmp_path / "bench",
            [Submission(goal.parents[2])],
            out,
            backend=first,
            on_run=thaw,
            on_notice=notices.append,
        )
        [record] = load_runs(out)
        assert record.verdict == "infra-error", record
        assert "the container engine stopped answering while" in record.reason
        assert "did not answer again within 1.5 s" in record.reason
        assert lost_containers()  # kept from us while frozen...
        first.close()  # as eval does at its end (it closes the client too)
        assert lost_containers() == []  # ...and removed once it answers: nothing left
        assert leftover_containers(docker_client) == []

        client = docker.DockerClient(base_url=proxy.url, timeout=60)
        again = DockerBackend(timeout_s=4, client=client)
        run_evaluation(tmp_path / "bench", [Submission(goal.parents[2])], out, backend=again)
        [record] = load_runs(out)
        assert record.verdict == "pass", record  # the candidate's own verdict, on resume
    finally:
        client.close()
        proxy.close()
        socket_path.unlink(missing_ok=True)


def test_an_image_prepared_while_the_engine_is_down_is_prepared_once_it_is_back(
    tmp_path: Path, docker_client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    cut_waits(monkeypatch)
    task = write_task(tmp_path / "bench", tag="prepdown")
    socket_path = Path(f"/tmp/lmr-proxy-{uuid.uuid4().hex[:8]}.sock")
    proxy = EngineProxy(socket_path)
    client = docker.DockerClient(base_url=proxy.url, timeout=60)
    try:
        proxy.on(r"GET .*/images/", "down", refusals=2)  # its first look at the image
        image = DockerBackend(client=client).prepare(task)
        assert image.image_id.startswith("sha256:")
        assert sum("/_ping" in request for request in proxy.seen) >= 2
    finally:
        client.close()
        proxy.close()
        socket_path.unlink(missing_ok=True)
