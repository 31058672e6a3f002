"""The base image: pulled when the engine can pull it, else built offline, saying which.

The pull is real, through a registry on loopback (tests/support/registry.py); so are
the registries that cannot serve it: a closed port, and one that accepts connections
and never answers. The offline build's own work (debootstrap, minutes, root) is
exercised by .ci/setup and benchmarks/fresh_machine.py; here a quick real import
stands in for it, so that what is tested is the decision and what is said.
"""

from __future__ import annotations

import contextlib
import io
import os
import socket
import subprocess
import sys
import tarfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import docker.errors
import pytest

from lmr_author.cli import main
from lmr_author.images.base_image import apt_mirror, ensure_base_image
from lmr_author.runtime import LABEL_KEY
from tests.support.registry import registry

__all__ = ["registry"]

TESTS_LABEL = f"{LABEL_KEY}=test-base-image"


def tiny_rootfs(marker: str) -> bytes:
    """A root file system of one file: an image that imports in no time."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        data = marker.encode()
        entry = tarfile.TarInfo("marker")
        entry.size = len(data)
        tar.addfile(entry, io.BytesIO(data))
    return buffer.getvalue()


def import_tiny(client: Any, tag: str, marker: str) -> str:
    repository, _, version = tag.rpartition(":")
    client.api.import_image_from_data(
        tiny_rootfs(marker), repository=repository, tag=version, changes=[f"LABEL {TESTS_LABEL}"]
    )
    return str(client.images.get(tag).id)


@pytest.fixture
def names(docker_client: Any) -> Iterator[list[str]]:
    """Tags a test makes; removed afterwards (with the images only they name)."""
    made: list[str] = []
    yield made
    for tag in made:
        with contextlib.suppress(docker.errors.ImageNotFound):  # never made, or gone
            docker_client.images.remove(tag, force=True)


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def silent_registry() -> Iterator[str]:
    """``127.0.0.1:PORT``: accepts connections (the kernel's backlog) and never answers."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        yield f"127.0.0.1:{listener.getsockname()[1]}"


def never_built(_client: Any, tag: str) -> None:
    pytest.fail(f"{tag} was to be pulled, not built offline")


@pytest.mark.docker
def test_the_image_is_pulled_when_the_registry_serves_it(
    docker_client: Any, registry: str, names: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    tag = f"{registry}/base-{os.getpid()}:3.11-slim"
    names.append(tag)
    pushed = import_tiny(docker_client, tag, "pushed")
    for event in docker_client.images.push(tag, stream=True, decode=True):
        assert "error" not in event, event
    docker_client.images.remove(tag)  # an engine without it, as on a fresh machine

    assert main(["sandbox", "base-image", "--tag", tag, "--no-build"]) == 0
    said = capsys.readouterr()
    assert f"base image {tag}: pulled (sha256:" in said.out
    assert f"pulling {tag}" in said.err
    assert docker_client.images.get(tag).id == pushed

    # The next time it is kept as it is: no pull, no build.
    kept = ensure_base_image(tag, build_offline=never_built)
    assert (kept.how, kept.image_id, kept.pull_error) == ("present", pushed, None)


@pytest.mark.docker
def test_an_unreachable_registry_falls_back_to_the_offline_build(
    docker_client: Any, registry: str, names: list[str]
) -> None:
    port = closed_port()
    tag = f"127.0.0.1:{port}/base-{os.getpid()}:3.11-slim"
    names.append(tag)
    steps: list[str] = []
    built: list[str] = []

    def build(client: Any, wanted: str) -> None:
        built.append(import_tiny(client, wanted, "built offline"))

    result = ensure_base_image(tag, build_offline=build, on_step=steps.append)
    assert result.how == "built" and [result.image_id] == built
    assert result.pull_error is not None and f"127.0.0.1:{port}" in result.pull_error
    assert steps[0].startswith(f"pulling {tag}")
    assert steps[1].startswith(f"could not pull {tag} (")
    assert steps[1].endswith("building it offline with debootstrap")


@pytest.mark.docker
def test_a_registry_that_never_answers_is_given_up_on(
    docker_client: Any, registry: str, silent_registry: str, names: list[str]
) -> None:
    tag = f"{silent_registry}/base-{os.getpid()}:3.11-slim"
    names.append(tag)
    built: list[str] = []
    result = ensure_base_image(
        tag,
        pull_timeout=2,
        build_offline=lambda client, wanted: built.append(import_tiny(client, wanted, "x")),
    )
    # Our time-out said so, not the engine's own (which ends in "deadline exceeded").
    assert result.pull_error == ("no word from the engine for 2 s: its registry seems out of reach")
    assert result.how == "built" and [result.image_id] == built


@pytest.mark.docker
def test_without_the_offline_build_a_failed_pull_is_the_error(
    docker_client: Any, registry: str, capsys: pytest.CaptureFixture[str]
) -> None:
    tag = f"127.0.0.1:{closed_port()}/base-{os.getpid()}:3.11-slim"
    assert main(["sandbox", "base-image", "--tag", tag, "--no-build"]) == 2
    error = capsys.readouterr().err
    assert f"could not pull {tag}: " in error and "--no-pull" in error
    assert "Traceback" not in error


@pytest.mark.docker
def test_an_offline_build_that_cannot_run_says_the_pull_failed_too(
    docker_client: Any, registry: str
) -> None:
    from lmr_author.util.errors import UserError

    tag = f"127.0.0.1:{closed_port()}/base-{os.getpid()}:3.11-slim"

    def cannot(_client: Any, _tag: str) -> None:
        raise UserError("debootstrap is not installed", hint="Install it.")

    with pytest.raises(UserError) as raised:
        ensure_base_image(tag, build_offline=cannot)
    message = str(raised.value)
    assert message.startswith(f"could not pull {tag} (")
    assert "nor build it offline: debootstrap is not installed. Install it." in message


DEBIAN_SOURCES = """\
Types: deb
URIs: http://mirror.invalid/debian
Suites: bookworm bookworm-updates
Components: main

Types: deb
URIs: http://mirror.invalid/debian-security
Suites: bookworm-security
Components: main
"""


@pytest.mark.parametrize(
    ("os_id", "sources", "expected"),
    [
        (
            "debian",
            {"sources.list.d/debian.sources": DEBIAN_SOURCES},
            "http://mirror.invalid/debian",
        ),
        (
            "debian",
            {
                "sources.list": "deb http://mirror.invalid/debian-security bookworm-security main\n"
                "deb http://mirror.invalid/debian bookworm main\n"
            },
            "http://mirror.invalid/debian",
        ),
        # Ubuntu's archive has no Debian suite: debootstrap's own default is used.
        ("ubuntu", {"sources.list": "deb http://mirror.invalid/ubuntu noble main\n"}, None),
    ],
)
def test_the_offline_build_uses_the_debian_mirror_apt_uses_on_debian_only(
    tmp_path: Path, os_id: str, sources: dict[str, str], expected: str | None
) -> None:
    (tmp_path / "etc/apt/sources.list.d").mkdir(parents=True)
    (tmp_path / "etc/os-release").write_text(f'NAME="X"\nID={os_id}\n')
    for name, text in sources.items():
        (tmp_path / "etc/apt" / name).write_text(text)
    assert apt_mirror(tmp_path) == expected


#: What .ci/setup installs before it gets the base image: lmr-author and the engine's
#: SDK only (pip installs the rest meanwhile), so that step may import nothing else.
BASE_IMAGE_STEP = """
import sys
import docker, docker.errors, docker.utils
before = set(sys.modules)
from lmr_author.cli import build_parser
build_parser().parse_args(["sandbox", "base-image", "--tag", "x:y"])
import lmr_author.commands.sandbox, lmr_author.images.base_image
import lmr_author.images.certificates, lmr_author.runtime.engine
new = {name.split(".")[0] for name in set(sys.modules) - before}
print(" ".join(sorted(new - set(sys.stdlib_module_names) - {"lmr_author"})))
"""


def test_the_base_image_step_needs_nothing_but_the_engines_sdk(repo_root: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", BASE_IMAGE_STEP],
        capture_output=True,
        text=True,
        cwd=repo_root,
        check=True,
    )
    assert done.stdout.split() == []
