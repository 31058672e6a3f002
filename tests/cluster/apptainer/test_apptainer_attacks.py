"""Attacks on what is Apptainer's own: the staged nonce, the bound harness and
candidate, the start marker, the host folders behind the binds, the network."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from lmr_author.domain.task import Task
from lmr_author.images.task_images import ImageRef
from lmr_author.sandbox.apptainer import NONCE_FILE, STARTED
from tests.adversarial.exploits import assert_not_passed, candidate, score

pytestmark = [pytest.mark.docker, pytest.mark.apptainer]


def test_the_nonce_the_harness_and_the_image_are_out_of_reach(
    unittest_task: tuple[Task, ImageRef], docker_client: Any
) -> None:
    body = f"""\
        import os, socket
        for path in ("{NONCE_FILE}", "/proc/1/environ", "/proc/1/mem"):
            try:
                print("READ", path, open(path, "rb").read(64), flush=True)
            except OSError as error:
                print("DENIED", path, type(error).__name__, flush=True)
        for path in ("/opt/lmr-harness/supervise.py", os.path.abspath(__file__),
                     "/usr/local/lib/x", "/etc/passwd"):
            try:
                open(path, "ab").close()
                print("WROTE", path, flush=True)
            except OSError as error:
                print("DENIED", path, type(error).__name__, flush=True)
        try:
            socket.create_connection(("10.0.0.1", 80), timeout=2)
            print("CONNECTED", flush=True)
        except OSError as error:
            print("NO NETWORK", type(error).__name__, flush=True)
        print("uid", os.getuid(), flush=True)
        """
    run = score(unittest_task, candidate(body), docker_client)
    log = run.verdicts[0].log
    assert "READ" not in log and "WROTE" not in log and "CONNECTED" not in log, log
    assert "NO NETWORK" in log, log
    if os.geteuid() == 0:  # root runs the test as nobody, as Docker does
        assert "uid 65534" in log, log
    assert_not_passed(run)


def test_a_candidate_cannot_pass_off_its_failure_as_apptainers(
    unittest_task: tuple[Task, ImageRef], docker_client: Any
) -> None:
    """Printing Apptainer's start marker or a FATAL line, then dying, stays the
    candidate's failure: only the wrapper's marker before any test code counts."""
    body = f"""\
        import os, sys
        print("{STARTED}")
        sys.stderr.write("FATAL:   container creation failed: no loop devices\\n")
        sys.stderr.flush()
        os._exit(255)
        """
    assert_not_passed(score(unittest_task, candidate(body), docker_client))


def test_a_broken_image_is_our_infrastructure_error(
    unittest_task: tuple[Task, ImageRef],
    docker_client: Any,
    sif_cache: Path,
) -> None:
    """A SIF that is not one: Apptainer fails before the test starts, and says so."""
    _, image = unittest_task
    sif = sif_cache / f"{image.image_id.removeprefix('sha256:')}.sif"
    saved = sif.read_bytes() if sif.is_file() else None
    sif.write_bytes(b"not a SIF at all")
    try:
        run = score(unittest_task, candidate(""), docker_client)
    finally:
        if saved is None:
            sif.unlink()
        else:
            sif.write_bytes(saved)
    assert run.infra_error is not None and "apptainer" in run.infra_error, run
    assert run.verdicts == []


def test_filling_the_scratch_is_the_candidates_error(
    unittest_task: tuple[Task, ImageRef], docker_client: Any
) -> None:
    """/tmp is Apptainer's in-memory session folder, under the memory limit: filling it
    ends in "no space" or the memory limit's kill, the candidate's error either way."""
    body = """\
        with open("/tmp/fill", "wb") as handle:
            while True:
                handle.write(b"x" * (1 << 20))
        """
    run = score(unittest_task, candidate(body), docker_client)
    assert_not_passed(run)
    assert run.verdict == "error"
    assert "No space left on device" in run.reason or "killed by signal 9" in run.reason, run


def test_gpus_on_a_host_without_them_are_refused_not_run_on_the_cpu(
    unittest_task: tuple[Task, ImageRef], docker_client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Docker refuses a GPU request it cannot meet; Apptainer's --nv would just run the
    test on the CPU, and a GPU task's verdict would be counted. Refused instead."""
    from lmr_author.sandbox import apptainer
    from lmr_author.sandbox.limits import Limits

    monkeypatch.setattr(apptainer, "host_gpus", lambda: [])  # whatever this host has
    run = score(unittest_task, candidate(""), docker_client, limits=Limits(gpus="all"))
    assert run.infra_error is not None and "no NVIDIA GPU" in run.infra_error, run
    assert run.verdicts == []
