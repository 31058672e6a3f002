"""Untrusted candidates in real containers: verdicts, limits, isolation and clean-up."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import textwrap
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from lmr_author.domain.task import Task
from lmr_author.images.task_images import ImageRef, ensure_image
from lmr_author.sandbox.limits import Limits
from lmr_author.sandbox.run_result import ImplementationRun
from tests.support.sandbox_tasks import LEGACY_TEST, leftover_containers, run_candidate

pytestmark = [pytest.mark.docker, pytest.mark.usefixtures("no_leftovers")]

FAST = Limits(memory_mb=256, cpus=1.0, pids=64, timeout_s=60.0)


def _candidate(body: str) -> bytes:
    """A goal file whose module level runs ``body`` and whose add() is right."""
    return (textwrap.dedent(body) + "\n\ndef add(a, b):\n    return a + b\n").encode()


def _run(
    pair: tuple[Task, ImageRef], candidate: bytes | None, client: Any, **options: Any
) -> ImplementationRun:
    task, image = pair
    options.setdefault("limits", FAST)
    return run_candidate(task, task.implementations[0], candidate, image, client, **options)


def test_golden_passes_and_masked_fails(
    calc_task: tuple[Task, ImageRef], docker_client: Any
) -> None:
    task, _ = calc_task
    golden = task.implementations[0].golden_path.read_bytes()
    passed = _run(calc_task, golden, docker_client)
    assert passed.verdict == "pass", passed.verdicts[0].log
    assert passed.verdicts[0].log.strip() == "ok"
    assert passed.verdicts[0].exit_code == 0
    masked = _run(calc_task, None, docker_client)
    assert masked.verdict == "fail"
    assert "add(2, 3) should be 5" in masked.verdicts[0].reason


def test_raising_candidate_is_an_error(
    calc_task: tuple[Task, ImageRef], docker_client: Any
) -> None:
    run = _run(calc_task, _candidate("raise RuntimeError('candidate blew up')"), docker_client)
    assert run.verdict == "error"
    # The candidate's own text, quoted and marked (issue 39).
    assert "in the candidate's code: RuntimeError: 'candidate blew up'" in run.verdicts[0].reason


def test_syntax_error_is_an_error(calc_task: tuple[Task, ImageRef], docker_client: Any) -> None:
    run = _run(calc_task, b"def add(a, b):\n    return a +\n", docker_client)
    assert run.verdict == "error"
    assert "syntax error" in run.verdicts[0].reason


def test_missing_module_is_an_error(calc_task: tuple[Task, ImageRef], docker_client: Any) -> None:
    run = _run(calc_task, _candidate("import torch_that_is_not_installed"), docker_client)
    assert run.verdict == "error"
    assert "missing module" in run.verdicts[0].reason
    assert "torch_that_is_not_installed" in run.verdicts[0].reason


def test_endless_loop_times_out_and_the_container_goes(
    calc_task: tuple[Task, ImageRef], docker_client: Any
) -> None:
    limits = Limits(memory_mb=256, pids=64, timeout_s=3.0)
    begun = time.monotonic()
    run = _run(calc_task, _candidate("while True:\n    pass"), docker_client, limits=limits)
    assert run.verdict == "timeout"
    assert run.verdicts[0].exit_code is None
    assert "3 s" in run.verdicts[0].reason
    assert time.monotonic() - begun < 20
    assert leftover_containers(docker_client) == []


def test_fork_bomb_hits_the_process_limit(
    calc_task: tuple[Task, ImageRef], docker_client: Any
) -> None:
    bomb = _candidate(
        """\
        import os
        children = 0
        try:
            while True:
                if os.fork() == 0:
                    while True:
                        pass
                children += 1
        except OSError as error:
            print("fork refused after", children, "children:", error, flush=True)
            raise SystemExit(3)
        """
    )
    limits = Limits(memory_mb=256, cpus=0.5, pids=16, timeout_s=8.0)
    run = _run(calc_task, bomb, docker_client, limits=limits)
    assert run.verdict in {"error", "fail", "timeout"}
    assert "fork refused after" in run.verdicts[0].log
    children = int(run.verdicts[0].log.split("fork refused after")[1].split()[0])
    assert children < 16
    # The machine is fine: this process can still start processes.
    assert subprocess.run(["true"], check=False).returncode == 0


def test_endless_allocation_is_an_out_of_memory_error(
    calc_task: tuple[Task, ImageRef], docker_client: Any
) -> None:
    hog = _candidate(
        """\
        blocks = []
        while True:
            blocks.append(bytearray(16 * 1024 * 1024))
        """
    )
    limits = Limits(memory_mb=96, pids=64, timeout_s=60.0)
    run = _run(calc_task, hog, docker_client, limits=limits)
    assert run.verdict == "error"
    reason = run.verdicts[0].reason
    assert "out of memory" in reason or "MemoryError" in reason, reason


def test_no_network_but_own_loopback(calc_task: tuple[Task, ImageRef], docker_client: Any) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        port = server.getsockname()[1]
        probe = _candidate(
            f"""\
            import os, socket
            print("IFACES", sorted(os.listdir("/sys/class/net")), flush=True)
            try:
                socket.create_connection(("127.0.0.1", {port}), timeout=3).close()
                print("HOST-SERVER reached", flush=True)
            except OSError as error:
                print("HOST-SERVER unreachable", type(error).__name__, flush=True)
            """
        )
        run = _run(calc_task, probe, docker_client)
        server.settimeout(0.1)
        with pytest.raises(TimeoutError):
            server.accept()
    log = run.verdicts[0].log
    assert "IFACES ['lo']" in log, log
    assert "HOST-SERVER unreachable" in log, log
    assert run.verdict == "pass"


def test_non_root_and_no_host_environment(
    calc_task: tuple[Task, ImageRef], docker_client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LMR_SECRET_PROBE", "do-not-leak")
    probe = _candidate(
        """\
        import os
        print("UID", os.getuid(), "GID", os.getgid(), flush=True)
        print("SECRET", os.environ.get("LMR_SECRET_PROBE"), flush=True)
        print("ASKED", os.environ.get("LMR_ASKED_FOR"), flush=True)
        print("PYTHONPATH", os.environ.get("PYTHONPATH"), flush=True)
        print("CWD", os.getcwd(), flush=True)
        """
    )
    run = _run(calc_task, probe, docker_client, env={"LMR_ASKED_FOR": "yes"})
    log = run.verdicts[0].log
    # The candidate runs in a process of its own, as a user that owns nothing in the image
    # (the test's process is nobody's).
    assert "UID 65533 GID 65533" in log
    assert "SECRET None" in log
    assert "ASKED yes" in log
    assert f"PYTHONPATH {calc_task[1].workdir}" in log
    assert f"CWD {calc_task[1].workdir}" in log


def test_legacy_protocol_is_chosen_automatically(
    legacy_task: tuple[Task, ImageRef], docker_client: Any
) -> None:
    task, _ = legacy_task
    golden = task.implementations[0].golden_path.read_bytes()
    passed = _run(legacy_task, golden, docker_client)
    assert passed.verdict == "pass", (passed.reason, passed.verdicts[0].log)
    assert passed.verdicts[0].protocol == "legacy"
    assert passed.verdicts[0].legacy_log == "Test Passed\nTest Passed\n"
    masked = _run(legacy_task, None, docker_client)
    assert masked.verdict == "fail"
    assert "2 'Failed'" in masked.verdicts[0].reason
    # Forced in-process, the logs folder is still writable (every test gets one), so
    # the test runs; only its exit status counts then, which is why auto picks legacy.
    forced = _run(legacy_task, None, docker_client, protocol="exit-code")
    assert forced.verdicts[0].protocol == "exit-code"
    assert "PermissionError" not in forced.reason, forced.reason


def test_missing_image_is_an_infra_error(
    calc_task: tuple[Task, ImageRef], docker_client: Any
) -> None:
    task, image = calc_task
    gone = ImageRef(
        tag="lmr-author/none:0", image_id="sha256:" + "0" * 64, built=False, workdir=image.workdir
    )
    run = run_candidate(task, task.implementations[0], None, gone, docker_client)
    assert run.verdict == "infra-error"
    assert run.infra_error


def test_interrupt_removes_the_container(
    calc_task: tuple[Task, ImageRef], docker_client: Any
) -> None:
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signals reach only the main thread")
    # Ctrl-C once the test's container really runs (not after a guessed delay, which
    # under load lands while the engine is still creating it).
    stop = threading.Event()

    def interrupt_when_running() -> None:
        while not stop.is_set():
            if any(c["State"] == "running" for c in leftover_containers(docker_client)):
                os.kill(os.getpid(), signal.SIGINT)
                return
            stop.wait(0.05)

    watcher = threading.Thread(target=interrupt_when_running, daemon=True)
    watcher.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            _run(calc_task, _candidate("import time\ntime.sleep(30)"), docker_client)
    finally:
        stop.set()
        watcher.join(timeout=30)
    assert leftover_containers(docker_client) == []


def test_interrupt_while_the_container_is_created_leaves_none_behind(
    calc_task: tuple[Task, ImageRef], docker_client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C in the middle of the engine's create: held until the container can be removed."""
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signals reach only the main thread")
    from docker.models.containers import ContainerCollection

    real_create = ContainerCollection.create

    def create_then_interrupt(self: Any, *args: Any, **kwargs: Any) -> Any:
        created = real_create(self, *args, **kwargs)
        os.kill(os.getpid(), signal.SIGINT)  # before create() has even returned its object
        return created

    monkeypatch.setattr(ContainerCollection, "create", create_then_interrupt)
    with pytest.raises(KeyboardInterrupt):
        _run(calc_task, _candidate("import time\ntime.sleep(30)"), docker_client)
    assert leftover_containers(docker_client) == []


def test_warm_runs_account_for_their_time(
    calc_task: tuple[Task, ImageRef], docker_client: Any
) -> None:
    """The test's own time is within the run's; the overhead between them is measured
    by benchmarks/bench_eval.py, never timed here (the machine may be busy)."""
    task, _ = calc_task
    golden = task.implementations[0].golden_path.read_bytes()
    for _ in range(2):
        run = _run(calc_task, golden, docker_client)
        assert run.verdict == "pass"
        assert 0 < run.test_duration_s <= run.wall_s


def test_root_owned_repository_still_runs_as_non_root(
    task_factory: Callable[..., Task], docker_client: Any
) -> None:
    dockerfile = (
        "FROM python:3.11-slim\nARG DIR\nCOPY ${DIR} /workspace/${DIR}\nWORKDIR /workspace\n"
    )
    task = task_factory(tag="rootowned", dockerfile=dockerfile, test_source=LEGACY_TEST)
    image = ensure_image(task, client=docker_client)
    assert image.workdir == "/workspace/calc_repo"
    golden = task.implementations[0].golden_path.read_bytes()
    run = _run((task, image), golden, docker_client)
    assert run.verdict == "pass", run.verdicts[0].log
    assert run.verdicts[0].legacy_log == "Test Passed\nTest Passed\n"


def test_duration_is_the_tests_own_run_time(
    calc_task: tuple[Task, ImageRef], docker_client: Any
) -> None:
    run = _run(calc_task, _candidate("import time\ntime.sleep(1.5)"), docker_client)
    assert run.verdict == "pass"
    assert 1.5 <= run.verdicts[0].duration_s < 5
    assert run.wall_s >= run.verdicts[0].duration_s


def test_packages_the_image_installed_for_its_user_are_still_found(
    task_factory: Callable[..., Task], docker_client: Any
) -> None:
    # The test runs as nobody with HOME in the scratch: a `pip install --user` of the
    # image's build user must still import (published Dockerfiles do that).
    template = (Path(__file__).resolve().parents[2] / "templates" / "Dockerfile").read_text()
    site = "/home/lmr/.local/lib/python3.11/site-packages"
    dockerfile = template.replace("{repo_folder_name}", "calc_repo").replace(
        "USER ${UID}:${GID}",
        f"USER ${{UID}}:${{GID}}\nRUN mkdir -p {site} && echo 'VALUE = 42' > {site}/userpkg.py",
    )
    test = "import userpkg\nfrom calc import add\nassert add(2, 3) == 5 and userpkg.VALUE == 42\n"
    task = task_factory(tag="usersite", test_source=test, dockerfile=dockerfile)
    image = ensure_image(task, client=docker_client)
    golden = task.implementations[0].golden_path.read_bytes()
    run = _run((task, image), golden, docker_client)
    assert run.verdict == "pass", (run.reason, run.verdicts[0].log)
