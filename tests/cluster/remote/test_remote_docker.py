"""``DOCKER_HOST=ssh://user@host``: every container runs on the remote engine, reached
with the system's ssh. The "remote" here is this machine through an sshd the test starts
on a loopback port (Debian's openssh-server), so the engine, and so the run keys, are
those of a local evaluation: the same verdicts and keys both ways.
"""

from __future__ import annotations

import contextlib
import getpass
import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import IN_CI

pytestmark = [pytest.mark.docker, pytest.mark.slow]

BENCHMARK = Path(__file__).resolve().parents[3] / "benchmark"
TASK = "03-TopP"


@pytest.fixture(scope="module")
def ssh_docker_host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """Environment for the CLI: DOCKER_HOST=ssh://… and an ``ssh`` first on PATH that
    uses this test's key, known hosts and port (never the user's own ~/.ssh)."""
    sshd, ssh = shutil.which("sshd", path="/usr/sbin:/usr/bin"), shutil.which("ssh")
    if sshd is None or ssh is None or shutil.which("docker") is None:
        if IN_CI:
            pytest.fail("CI=true but sshd, ssh or the docker CLI is missing (.ci/test-setup)")
        pytest.skip("needs sshd, ssh and the docker CLI (apt install openssh-server)")
    root = tmp_path_factory.mktemp("ssh")
    for name in ("host", "client"):
        subprocess.run(
            ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(root / name)], check=True
        )
    (root / "authorized_keys").write_text((root / "client.pub").read_text())
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    (root / "sshd_config").write_text(
        f"ListenAddress 127.0.0.1\nPort {port}\nHostKey {root / 'host'}\n"
        f"AuthorizedKeysFile {root / 'authorized_keys'}\nPasswordAuthentication no\n"
        "KbdInteractiveAuthentication no\nUsePAM no\nStrictModes no\n"
        f"PidFile {root / 'sshd.pid'}\n"
    )
    (root / "known_hosts").write_text(
        f"[127.0.0.1]:{port} {(root / 'host.pub').read_text().split()[0]} "
        f"{(root / 'host.pub').read_text().split()[1]}\n"
    )
    with contextlib.suppress(PermissionError):  # root's sshd insists on it; a user's not
        Path("/run/sshd").mkdir(exist_ok=True)
    server = subprocess.Popen(
        [sshd, "-D", "-e", "-f", str(root / "sshd_config")],
        stdout=subprocess.DEVNULL,
        stderr=(root / "sshd.log").open("wb"),
    )
    wrapper = root / "bin" / "ssh"
    wrapper.parent.mkdir()
    wrapper.write_text(
        f"#!/bin/sh\nexec {ssh} -F /dev/null -i {root / 'client'} -p {port} "
        f"-o UserKnownHostsFile={root / 'known_hosts'} -o StrictHostKeyChecking=yes "
        f'-o BatchMode=yes "$@"\n'
    )
    wrapper.chmod(0o755)
    env = dict(os.environ)
    env["PATH"] = f"{wrapper.parent}:{env['PATH']}"
    env["DOCKER_HOST"] = f"ssh://{getpass.getuser()}@127.0.0.1"
    try:
        deadline = time.monotonic() + 30
        while subprocess.run(
            [str(wrapper), f"{getpass.getuser()}@127.0.0.1", "true"], capture_output=True
        ).returncode:
            if server.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"sshd did not start: {(root / 'sshd.log').read_text()}")
            time.sleep(0.3)
        yield env
    finally:
        server.terminate()
        server.wait(timeout=30)


def _eval(out: Path, env: dict[str, str]) -> dict[str, Any]:
    argv = [sys.executable, "-m", "lmr_author", "eval", str(BENCHMARK), "--task", TASK]
    argv += ["--output", str(out), "--json"]
    for system in ("correct", "wrong-logic"):
        argv += ["--submission", str(BENCHMARK / "submissions" / system)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=900, env=env)
    assert done.returncode in (0, 1), done.stderr
    results: dict[str, Any] = json.loads(done.stdout)
    return results


def _keys(out: Path) -> dict[str, str]:
    found = {}
    for path in (out / "runs").rglob("*.json"):
        record = json.loads(path.read_text())
        if "run_key" in record:
            found[f"{record['system']}/{record['task']}"] = record["run_key"]
    return found


def test_eval_through_an_ssh_docker_host_matches_the_local_engine(
    tmp_path: Path, ssh_docker_host: dict[str, str]
) -> None:
    local_env = {k: v for k, v in ssh_docker_host.items() if k != "DOCKER_HOST"}
    local = _eval(tmp_path / "local", local_env)
    remote = _eval(tmp_path / "remote", ssh_docker_host)
    verdicts = {run["system"]: run["verdict"] for run in remote["runs"]}
    reasons = [run["reason"] for run in remote["runs"]]
    assert verdicts == {"correct": "pass", "wrong-logic": "fail"}, reasons
    assert verdicts == {run["system"]: run["verdict"] for run in local["runs"]}
    assert _keys(tmp_path / "remote") == _keys(tmp_path / "local") != {}
