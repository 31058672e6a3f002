"""A real image registry on this machine's loopback: Debian's ``docker-registry``
(the Distribution registry), started per session on a free port, data in a temp folder.

Docker pushes to and pulls from ``127.0.0.1:PORT`` over plain HTTP (loopback registries
are trusted by default). Skips without the program on a laptop; fails in CI.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from tests.conftest import IN_CI

__all__ = ["registry"]

CONFIG = """\
version: 0.1
log:
  level: error
storage:
  filesystem:
    rootdirectory: {root}
  delete:
    enabled: true
http:
  addr: 127.0.0.1:{port}
"""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="session")
def registry(tmp_path_factory: pytest.TempPathFactory, docker_client: Any) -> Iterator[str]:
    """``127.0.0.1:PORT/lmr-test``: a namespace in a registry of this session."""
    engine_host = str(docker_client.info().get("Name") or "")
    if engine_host != socket.gethostname():
        # The engine pushes and pulls, from its own loopback: one on another machine (or
        # this container's host, through a mounted socket) cannot reach ours.
        if IN_CI:
            pytest.fail(f"CI=true but the engine runs on {engine_host!r}, not on this machine")
        pytest.skip(f"the engine runs on {engine_host!r}; a loopback registry is out of its reach")
    program = shutil.which("docker-registry") or shutil.which("registry")
    if program is None:
        if IN_CI:
            pytest.fail("CI=true but docker-registry is not installed (.ci/test-setup installs it)")
        pytest.skip("no docker-registry program (apt install docker-registry)")
    root = tmp_path_factory.mktemp("registry")
    port = _free_port()
    config = root / "config.yml"
    config.write_text(CONFIG.format(root=root / "data", port=port))
    log = (root / "registry.log").open("wb")
    server = subprocess.Popen([program, "serve", str(config)], stdout=log, stderr=log)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/v2/", timeout=2):
                    break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(
                        f"docker-registry did not start: {(root / 'registry.log').read_text()}"
                    )
                time.sleep(0.2)
        yield f"127.0.0.1:{port}/lmr-test"
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()
