"""Task images pushed to a registry and pulled back by id (a real registry on loopback)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from lmr_author.cli import main
from lmr_author.domain.task import Task
from lmr_author.images.registry import check_registry, pull_image, remote_name
from lmr_author.images.task_images import ensure_image
from lmr_author.runtime.infra_error import InfraError
from lmr_author.util.errors import UserError
from tests.support.registry import registry

__all__ = ["registry"]


@pytest.mark.parametrize(
    "good", ["127.0.0.1:5000", "localhost/lab", "reg.example.org:5000/lab/x/", "a.b/c"]
)
def test_a_registry_names_its_host(good: str) -> None:
    assert check_registry(good) == good.rstrip("/")


@pytest.mark.parametrize("bad", ["lab/images", "ubuntu", "Reg.Example.org/x", "a.b/c d", ""])
def test_a_name_that_would_mean_docker_hub_or_is_no_reference_is_refused(bad: str) -> None:
    with pytest.raises(UserError, match="not a registry"):
        check_registry(bad)


@pytest.mark.docker
@pytest.mark.usefixtures("image_cleanup")
def test_a_pushed_image_is_pulled_back_with_its_id(
    task_factory: Callable[..., Task],
    docker_client: Any,
    registry: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    task = task_factory(tag="pushed")
    image = ensure_image(task, client=docker_client)
    assert main(["sandbox", "push", str(task.path), "--to", registry]) == 0
    printed = capsys.readouterr().out
    name = remote_name(registry, task, image.image_id)
    assert f"{task.name}: {name}@sha256:" in printed
    assert name not in str(docker_client.images.get(image.image_id).tags)  # untagged here

    docker_client.images.remove(image.image_id, force=True)  # a node without it
    pulled = pull_image(docker_client, registry, task, image.image_id)
    assert pulled.image_id == image.image_id and pulled.workdir == image.workdir


@pytest.mark.docker
@pytest.mark.usefixtures("image_cleanup")
def test_a_registry_serving_another_image_under_the_name_is_refused(
    task_factory: Callable[..., Task], docker_client: Any, registry: str
) -> None:
    """A moved or forged tag: what comes back is not the keyed id, so it is not run."""
    task = task_factory(tag="forged")
    image = ensure_image(task, client=docker_client)
    other = task_factory(tag="forger")
    impostor = ensure_image(other, client=docker_client)
    # Push the other task's image under this one's name and id.
    name = remote_name(registry, task, image.image_id)
    repository, _, tag = name.rpartition(":")
    docker_client.images.get(impostor.image_id).tag(repository, tag)
    for _ in docker_client.images.push(repository, tag, stream=True, decode=True):
        pass
    docker_client.images.remove(name, noprune=True)
    docker_client.images.remove(image.image_id, force=True)
    with pytest.raises(InfraError, match=r"not the .* the run was keyed with"):
        pull_image(docker_client, registry, task, image.image_id)
    with pytest.raises(InfraError, match="could not pull"):
        pull_image(docker_client, registry, task, "sha256:" + "1" * 64)


def test_push_to_a_name_without_a_host_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["sandbox", "push", str(tmp_path), "--to", "lab/images"]) == 2
    assert "not a registry" in capsys.readouterr().err
