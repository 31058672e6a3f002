"""The dependency install is built once: the environment image's install layer is the
task image's, whatever the task's name and repository folder (issue 30).

The requirement (pip itself) is always satisfied, so the install step runs offline; the
RUN layer of the task image must be the very layer the environment build made."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from lmr_author.authoring.build import build_task
from lmr_author.authoring.image_build import build_environment
from lmr_author.authoring.spec import GoalSpec, TaskSpec
from lmr_author.images.task_images import ensure_image

pytestmark = [pytest.mark.docker, pytest.mark.slow]

_INSTALL = "pip install -r /tmp/lmr-author/requirements.txt"


def _install_layer(client: Any, tag: str) -> str:
    """The id of the image layer that ran the dependency install."""
    history = client.api.history(tag)
    ids = [entry["Id"] for entry in history if _INSTALL in (entry.get("CreatedBy") or "")]
    assert len(ids) == 1, [entry.get("CreatedBy") for entry in history]
    assert ids[0] != "<missing>"  # built here, so the engine knows the layer's image
    return str(ids[0])


def test_the_task_image_reuses_the_environment_install_layer(
    tmp_path: Path, toy_repo: Path, docker_client: Any
) -> None:
    from lmr_author.sandbox.housekeeping import prune

    suffix = tmp_path.name[-6:].replace("_", "")
    spec = TaskSpec(
        folder_name=f"96-EnvLayer{suffix}",
        source=str(toy_repo),
        repo_path=str(toy_repo),
        repo_folder_name="first-folder",
        year=2025,
        instance_id=96,
        paper_later=True,
        requirements="pip  # always satisfied: the install step runs offline\n",
        goals=[GoalSpec("toy/losses.py", "margin_loss", instruction="Implement it.")],
    )
    # The same draft, named and placed otherwise by the time it is verified and saved.
    renamed = dataclasses.replace(spec, folder_name=f"97-TaskLayer{suffix}", repo_folder_name="t1")
    folders = [spec.folder_name, renamed.folder_name]
    try:
        environment = build_environment(spec)
        assert environment.ok and environment.image is not None, environment.diagnosis
        task = build_task(renamed, tmp_path / "bench")
        log: list[str] = []
        image = ensure_image(task, on_log=log.append)
        assert image.built
        assert _install_layer(docker_client, image.tag) == _install_layer(
            docker_client, environment.image.tag
        )
    finally:
        for folder in folders:
            prune(client=docker_client, task=folder)
