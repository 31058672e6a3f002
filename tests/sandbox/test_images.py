"""Hash-tagged task images: built once per content, rebuilt on any change."""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

import pytest

from lmr_author.domain.task import Task
from lmr_author.images.from_lines import rewrite_from
from lmr_author.images.task_images import ensure_image, plan_build
from lmr_author.runtime import KEY_LABEL, KIND_TASK_IMAGE, LABEL_KEY, TASK_LABEL, InfraError
from lmr_author.runtime.engine import get_client

BASE = "python:3.11-slim"


def test_rewrite_from_replaces_external_bases_only() -> None:
    text = (
        "FROM --platform=linux/amd64 pytorch/pytorch:2.0 AS build\n"
        "RUN echo hi\n"
        "FROM build\n"
        "from debian:12\r\n"
    )
    rewritten, bases = rewrite_from(text, "python:3.11-slim")
    assert rewritten == (
        "FROM --platform=linux/amd64 python:3.11-slim AS build\n"
        "RUN echo hi\n"
        "FROM build\n"
        "from python:3.11-slim\r\n"
    )
    assert bases == ["python:3.11-slim"]
    unchanged, originals = rewrite_from(text, None)
    assert unchanged == text
    assert originals == ["pytorch/pytorch:2.0", "debian:12"]


def test_unreachable_engine_is_an_infra_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/lmr-author-test.sock")
    with pytest.raises(InfraError, match="cannot reach the Docker engine"):
        get_client()


@pytest.mark.docker
def test_unchanged_task_is_not_rebuilt_and_a_change_is(
    task_factory: Callable[..., Task], docker_client: Any
) -> None:
    task = task_factory(tag="cache")
    (task.path / ".dockerignore").write_text("# comment\nnotes.txt\n")
    first = ensure_image(task, client=docker_client)
    assert first.built
    assert first.workdir == "/workspace/calc_repo"
    labels = docker_client.images.get(first.tag).labels
    assert labels[LABEL_KEY] == KIND_TASK_IMAGE
    assert labels[TASK_LABEL] == task.name
    assert first.tag.endswith(labels[KEY_LABEL][:16])

    # Byte-compiled files and ignored files do not count.
    (task.repo_dir / "__pycache__").mkdir()
    (task.repo_dir / "__pycache__" / "calc.cpython-311.pyc").write_bytes(b"\0junk")
    (task.path / "notes.txt").write_text("scratch")
    second = ensure_image(task, client=docker_client)
    assert (second.built, second.tag, second.image_id) == (False, first.tag, first.image_id)
    (task.path / "notes.txt").write_text("more scratch")
    assert ensure_image(task, client=docker_client).built is False

    # Any change to the context is a new image.
    (task.repo_dir / "unit_test" / "unit_test_1.py").write_text("print('changed')\n")
    third = ensure_image(task, client=docker_client)
    assert third.built
    assert third.tag != first.tag
    # ... and so is a change of build args.
    other_uid = plan_build(task, client=docker_client, uid=1001)
    assert other_uid.tag != third.tag
    # rebuild=True builds even when the tag exists.
    logs: list[str] = []
    forced = ensure_image(task, client=docker_client, rebuild=True, on_log=logs.append)
    assert forced.built and forced.tag == third.tag
    assert any("Step" in line for line in logs)
    assert not any("Using cache" in line for line in logs)
    # The image the rebuild replaced is gone, not left dangling.
    assert forced.image_id != third.image_id
    assert third.image_id not in {image["Id"] for image in docker_client.api.images(all=True)}


@pytest.mark.docker
def test_base_image_override(task_factory: Callable[..., Task], docker_client: Any) -> None:
    template = "FROM lmr-author-test/unpullable:0\nARG DIR\nCOPY ${DIR} /srv/${DIR}\nWORKDIR /srv\n"
    task = task_factory(tag="base", dockerfile=template)
    with pytest.raises(InfraError, match="did not build"):
        ensure_image(task, client=docker_client)
    image = ensure_image(task, client=docker_client, base_image=BASE)
    assert image.built
    # WORKDIR above the repository folder: tests still run from the repository folder.
    assert image.workdir == "/srv/calc_repo"


@pytest.mark.docker
def test_build_failure_is_an_infra_error_with_the_log(
    task_factory: Callable[..., Task], docker_client: Any
) -> None:
    task = task_factory(tag="broken", dockerfile=f"FROM {BASE}\nRUN echo about-to-fail && exit 3\n")
    with pytest.raises(InfraError) as caught:
        ensure_image(task, client=docker_client)
    text = str(caught.value)
    assert "did not build" in text
    assert "about-to-fail" in text
    assert str(task.dockerfile_path) in text


@pytest.mark.docker
def test_missing_dockerfile_is_an_infra_error(
    task_factory: Callable[..., Task], docker_client: Any
) -> None:
    task = task_factory(tag="nodockerfile")
    task.dockerfile_path.unlink()
    with pytest.raises(InfraError, match="no Dockerfile"):
        ensure_image(task, client=docker_client)


@pytest.mark.docker
def test_a_new_base_image_changes_the_tag(
    task_factory: Callable[..., Task], docker_client: Any
) -> None:
    task = task_factory(tag="baseid")
    alias = f"lmr-author-test/base-{task.name.lower()}:1"
    base = docker_client.images.get(BASE)
    base.tag(alias)
    try:
        before = plan_build(task, client=docker_client, base_image=alias)
        assert before.base_images == [alias]
        assert plan_build(task, client=docker_client, base_image=alias).tag == before.tag
        # Point the same name at another image: same Dockerfile text, new content.
        other = docker_client.images.build(
            fileobj=io.BytesIO(f"FROM {BASE}\nENV X=1\n".encode()), rm=True
        )[0]
        other.tag(alias)
        assert plan_build(task, client=docker_client, base_image=alias).tag != before.tag
    finally:
        # The alias is the only name of the other image: removing it removes that image.
        docker_client.api.remove_image(alias, force=True)
