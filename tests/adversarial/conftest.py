"""Fixtures of the adversarial suite: the task kinds a candidate may attack, built once."""

from __future__ import annotations

from typing import Any

import pytest

from lmr_author.domain.task import Task
from lmr_author.images.task_images import ImageRef, ensure_image
from tests.adversarial.exploits import write_replay_task, write_unittest_task


@pytest.fixture(scope="session")
def unittest_task(
    tmp_path_factory: pytest.TempPathFactory, docker_client: Any, image_cleanup: None
) -> tuple[Task, ImageRef]:
    """An in-process unittest + numpy.testing task (the published benchmark's kind)."""
    task = write_unittest_task(tmp_path_factory.mktemp("adv"))
    return task, ensure_image(task, client=docker_client)


@pytest.fixture(scope="session")
def replay_task(
    tmp_path_factory: pytest.TempPathFactory, docker_client: Any, image_cleanup: None
) -> tuple[Task, ImageRef]:
    """A replay task (the authoring flow's kind): expected outputs never in the image."""
    task = write_replay_task(tmp_path_factory.mktemp("adv"))
    return task, ensure_image(task, client=docker_client)
