"""An engine that stalls, drops its connection or kills from outside never decides a
verdict: the run's own evidence does, or the run is an infra-error saying what happened.

The engine is reached through a proxy socket the test controls (`EngineProxy`): each
fault lands on the exact request it names. Limits are short and the engine's slack is
cut to a second, so each test costs a few seconds.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import docker
import pytest

from lmr_author.domain.task import Task
from lmr_author.images.task_images import ImageRef
from lmr_author.runtime.engine import use_cgroup_parent
from lmr_author.sandbox import container_life
from lmr_author.sandbox.limits import Limits
from lmr_author.sandbox.run_result import ImplementationRun
from tests.support.engine_proxy import EngineProxy, cut_waits
from tests.support.sandbox_tasks import leftover_containers, run_candidate

pytestmark = [pytest.mark.docker, pytest.mark.usefixtures("no_leftovers")]

SHORT = Limits(memory_mb=256, cpus=1.0, pids=64, timeout_s=4.0)


@pytest.fixture
def proxy(
    tmp_path: Path, docker_client: Any, monkeypatch: pytest.MonkeyPatch
) -> Iterator[EngineProxy]:
    """The engine behind a proxy, with the waits on a stalled engine cut to seconds."""
    cut_waits(monkeypatch)
    socket_path = Path(f"/tmp/lmr-proxy-{uuid.uuid4().hex[:8]}.sock")
    engine = EngineProxy(socket_path)
    yield engine
    engine.close()
    socket_path.unlink(missing_ok=True)


@pytest.fixture
def proxied(proxy: EngineProxy) -> Iterator[Any]:
    client = docker.DockerClient(base_url=proxy.url, timeout=30)
    yield client
    client.close()


def _golden(task: Task, before: str = "") -> bytes:
    return (before + task.implementations[0].golden_path.read_text()).encode()


def _run(pair: tuple[Task, ImageRef], candidate: bytes, client: Any) -> ImplementationRun:
    task, image = pair
    return run_candidate(task, task.implementations[0], candidate, image, client, limits=SHORT)


def test_a_wait_the_engine_stalls_past_the_limit_is_read_from_the_runs_own_record(
    calc_task: tuple[Task, ImageRef], proxy: EngineProxy, proxied: Any
) -> None:
    proxy.on(r"POST .*/containers/\w+/wait", "stall")
    run = _run(calc_task, _golden(calc_task[0]), proxied)
    assert run.infra_error is None
    assert run.verdict == "pass", run.verdicts[0].reason  # not "timeout": it ran 0.2 s


def test_an_engine_frozen_through_a_run_is_an_infra_error_and_its_container_goes(
    calc_task: tuple[Task, ImageRef], proxy: EngineProxy, proxied: Any, docker_client: Any
) -> None:
    proxy.on(r"POST .*/containers/\w+/wait", "freeze")
    run = _run(calc_task, _golden(calc_task[0]), proxied)
    assert run.verdicts == []
    assert "stopped answering" in str(run.infra_error)
    assert "did not answer again within 1.5 s" in str(run.infra_error)
    # The engine is back: what it kept from us goes now (eval: at its end).
    assert container_life.lost_containers()
    proxy.thaw()
    assert container_life.remove_lost(proxied)
    assert container_life.lost_containers() == []
    assert leftover_containers(docker_client) == []


def test_a_connection_dropped_mid_wait_waits_again_for_the_run(
    calc_task: tuple[Task, ImageRef], proxy: EngineProxy, proxied: Any
) -> None:
    proxy.on(r"POST .*/containers/\w+/wait", "drop")
    task, image = calc_task
    candidate = _golden(task, "import time\ntime.sleep(1)\n")
    roomy = Limits(memory_mb=256, cpus=1.0, pids=64, timeout_s=30.0)  # no wait runs out
    run = run_candidate(task, task.implementations[0], candidate, image, proxied, limits=roomy)
    assert run.verdict == "pass", run.infra_error or run.verdicts[0].reason
    assert sum("/wait" in request for request in proxy.seen) == 2


def test_a_creation_whose_answer_is_lost_leaves_no_created_container(
    calc_task: tuple[Task, ImageRef], proxy: EngineProxy, proxied: Any, docker_client: Any
) -> None:
    proxy.on(r"POST .*/containers/create", "drop-answer")
    proxy.on(r"POST .*/containers/\w+/start", "drop")
    run = _run(calc_task, _golden(calc_task[0]), proxied)
    # Created, unheard of, removed; the retry's start dropped: an infra-error that says so.
    assert run.verdicts == []
    assert "connection to it dropped" in str(run.infra_error)
    assert "tried twice" in str(run.infra_error)
    assert leftover_containers(docker_client) == []


def test_an_engine_down_for_a_while_is_waited_for_with_back_off(
    calc_task: tuple[Task, ImageRef], proxy: EngineProxy, proxied: Any
) -> None:
    proxy.on(r"POST .*/containers/\w+/start", "down", refusals=3)
    run = _run(calc_task, _golden(calc_task[0]), proxied)
    assert run.verdict == "pass", run.infra_error
    assert sum("/_ping" in request for request in proxy.seen) >= 3


def test_a_kill_by_the_jobs_cgroup_is_not_the_candidates_out_of_memory(
    calc_task: tuple[Task, ImageRef], docker_client: Any
) -> None:
    """A job cgroup (the container's parent) with 300 MB, a run limit of 1024 MB and a
    candidate that takes 400 MB: the kernel's record names the job's cgroup."""
    memory = Path("/sys/fs/cgroup/memory")
    if not memory.is_dir() or not os.access(memory, os.W_OK):
        pytest.skip("needs cgroups v1 with a writable memory hierarchy (as root)")
    if docker_client.info().get("CgroupDriver") != "cgroupfs":
        pytest.skip("needs the cgroupfs cgroup driver (a job's cgroup as parent)")
    job = f"/lmr-test-{uuid.uuid4().hex[:8]}/job_1"
    (memory / job.lstrip("/")).mkdir(parents=True)
    (memory / job.lstrip("/") / "memory.limit_in_bytes").write_text(str(300 << 20))
    use_cgroup_parent(job)
    try:
        task, image = calc_task
        hungry = _golden(
            task, "blob = bytearray(400 << 20)\nblob[::4096] = b'x' * len(blob[::4096])\n"
        )
        limits = Limits(memory_mb=1024, cpus=1.0, pids=64, timeout_s=30.0)
        run = run_candidate(
            task, task.implementations[0], hungry, image, docker_client, limits=limits
        )
    finally:
        use_cgroup_parent(None)
        # The engine made the job's path in every controller (cgroupfs): all go.
        for controller in memory.parent.iterdir():
            made = controller / job.lstrip("/").split("/")[0]
            if made.is_dir():
                for folder in sorted(made.glob("**/"), key=lambda p: -len(p.parts)):
                    folder.rmdir()
    assert run.verdicts == []
    assert f"the memory limit of cgroup {job}" in str(run.infra_error), run.infra_error
    assert "not by the run's own limit of 1024 MB" in str(run.infra_error)
