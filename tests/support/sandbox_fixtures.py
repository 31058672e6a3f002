"""Fixtures of the sandbox tests: tiny task folders and their images, cleaned up after."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from lmr_author.domain.task import Task
from lmr_author.images.task_images import ImageRef, ensure_image
from tests.support.sandbox_tasks import (
    LEGACY_TEST,
    leftover_containers,
    remove_session_images,
    write_task,
)


@pytest.fixture(scope="session")
def image_cleanup(docker_client: Any) -> Iterator[None]:
    """Remove every image this session built, after the last test."""
    yield
    for container in leftover_containers(docker_client):
        docker_client.api.remove_container(container["Id"], force=True)
    remove_session_images(docker_client)


@pytest.fixture(scope="session")
def calc_task(
    tmp_path_factory: pytest.TempPathFactory, docker_client: Any, image_cleanup: None
) -> tuple[Task, ImageRef]:
    """The assert-style calculator task and its image, built once per session."""
    task = write_task(tmp_path_factory.mktemp("tasks"))
    return task, ensure_image(task, client=docker_client)


@pytest.fixture(scope="session")
def legacy_task(
    tmp_path_factory: pytest.TempPathFactory, docker_client: Any, image_cleanup: None
) -> tuple[Task, ImageRef]:
    """A task whose test only writes Passed/Failed lines to its legacy log."""
    task = write_task(tmp_path_factory.mktemp("tasks"), tag="legacy", test_source=LEGACY_TEST)
    return task, ensure_image(task, client=docker_client)


@pytest.fixture
def no_leftovers(docker_client: Any) -> Iterator[None]:
    """Fail the test if any container of this session survives it."""
    yield
    remaining = leftover_containers(docker_client)
    for container in remaining:
        docker_client.api.remove_container(container["Id"], force=True)
    assert remaining == [], f"containers left behind: {[c['Names'] for c in remaining]}"


@pytest.fixture
def task_factory(tmp_path: Path, image_cleanup: None) -> Callable[..., Task]:
    """Write a fresh task folder in this test's tmp_path (images cleaned at session end)."""
    counter = iter(range(1000))

    def make(**kwargs: Any) -> Task:
        root = tmp_path / f"t{next(counter)}"
        root.mkdir()
        return write_task(root, **kwargs)

    return make
