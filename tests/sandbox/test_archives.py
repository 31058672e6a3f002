"""Task images saved as files and loaded by an engine that lacks them, under one id."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from lmr_author.cli import main
from lmr_author.domain.task import Task
from lmr_author.images.archives import archive_name, load_images
from lmr_author.images.task_images import ensure_image, image_by_id
from lmr_author.runtime.infra_error import InfraError

pytestmark = [pytest.mark.docker, pytest.mark.usefixtures("image_cleanup")]


def test_a_saved_image_loads_back_under_its_id(
    task_factory: Callable[..., Task],
    docker_client: Any,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    task = task_factory(tag="archived")
    image = ensure_image(task, client=docker_client)
    shelf = tmp_path / "images"
    assert main(["sandbox", "save", str(task.path), "--to", str(shelf)]) == 0
    archive = shelf / archive_name(image.image_id)
    assert archive.is_file() and "saved" in capsys.readouterr().out
    assert [p.name for p in shelf.iterdir()] == [archive.name]  # no scratch file left
    # Saving again keeps the archive.
    assert main(["sandbox", "save", str(task.path), "--to", str(shelf)]) == 0
    assert "already there" in capsys.readouterr().out

    # Another engine (this one, without the image) loads it under the same id.
    docker_client.images.remove(image.image_id, force=True)
    assert main(["sandbox", "load", str(shelf)]) == 0
    assert "1 image(s) loaded, 0 already present" in capsys.readouterr().out
    assert docker_client.images.get(image.image_id).id == image.image_id
    assert load_images(shelf).present == [image.image_id]
    # The loaded image is the task's: no rebuild.
    assert not ensure_image(task, client=docker_client).built


def test_an_archive_whose_content_is_another_image_is_refused(
    calc_task: tuple[Task, Any], docker_client: Any, tmp_path: Path
) -> None:
    _, image = calc_task
    shelf = tmp_path / "images"
    shelf.mkdir()
    forged = shelf / archive_name("sha256:" + "0" * 64)
    with forged.open("wb") as out:
        for chunk in docker_client.images.get(image.image_id).save(named=True):
            out.write(chunk)
    with pytest.raises(InfraError, match="not the one its name says"):
        load_images(shelf)


def test_a_node_finds_the_keyed_image_by_its_id_and_nothing_else(
    task_factory: Callable[..., Task], calc_task: tuple[Task, Any], docker_client: Any
) -> None:
    """What the submitter keyed is found by id, without recomputing the content tag
    (which depends on the node's base images); another task's or a foreign image is not."""
    task = task_factory(tag="byid")
    image = ensure_image(task, client=docker_client)
    found = image_by_id(docker_client, task, image.image_id)
    assert found is not None
    assert (found.image_id, found.tag, found.workdir) == (image.image_id, image.tag, image.workdir)
    _, other = calc_task
    assert image_by_id(docker_client, task, other.image_id) is None  # another task's image
    base = docker_client.images.get("python:3.11-slim").id
    assert image_by_id(docker_client, task, base) is None  # not a task image at all
    assert image_by_id(docker_client, task, "sha256:" + "0" * 64) is None


def test_saving_to_a_file_is_a_clear_error_not_a_bug(
    task_factory: Callable[..., Task], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    task = task_factory(tag="savefile")
    taken = tmp_path / "a-file"
    taken.write_text("not a folder")
    assert main(["sandbox", "save", str(task.path), "--to", str(taken)]) == 2
    err = capsys.readouterr().err
    assert f"cannot use {taken}" in err and "internal error" not in err
