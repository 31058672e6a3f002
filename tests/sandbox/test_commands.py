"""`lmr-author sandbox build|run|list|prune` against a real engine."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from typing import Any

import pytest

from lmr_author.cli import main
from lmr_author.domain.task import Task
from lmr_author.runtime import KIND_BASE, KIND_RUN, LABEL_KEY, TASK_LABEL
from tests.support.sandbox_tasks import leftover_containers

pytestmark = pytest.mark.docker


def test_build_run_list_prune(
    task_factory: Callable[..., Task],
    docker_client: Any,
    capsys: pytest.CaptureFixture[str],
) -> None:
    task = task_factory(tag="cli")
    assert main(["sandbox", "build", str(task.path), "--quiet"]) == 0
    built = capsys.readouterr().out
    assert "built" in built and task.name in built
    assert main(["sandbox", "build", str(task.path), "--quiet"]) == 0
    assert "up to date" in capsys.readouterr().out

    assert main(["sandbox", "run", str(task.path), "--json", "--timeout", "60"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["verdict"] == "pass"
    assert payload["tests"][0]["test_file"] == "unit_test/unit_test_1.py"
    assert main(["sandbox", "run", str(task.path), "--masked"]) == 1
    assert "#1: fail" in capsys.readouterr().out
    bad = task.path.parent / "bad.py"  # outside the build context
    bad.write_text("def add(a, b):\n    return a - b\n")
    assert main(["sandbox", "run", str(task.path), "--candidate", str(bad)]) == 1
    assert ": fail (assertion failed" in capsys.readouterr().out
    assert main(["sandbox", "run", str(task.path), "--candidate", str(task.path / "nope")]) == 2
    assert "cannot read the candidate" in capsys.readouterr().err

    # A stopped container of ours, as a crashed evaluation would leave behind.
    image_tag = docker_client.images.list(filters={"label": f"{TASK_LABEL}={task.name}"})[0].tags[0]
    docker_client.containers.create(
        image_tag, command=["true"], labels={LABEL_KEY: KIND_RUN, TASK_LABEL: task.name}
    )
    assert main(["sandbox", "list", "--task", task.name, "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [image["tags"] for image in listed["images"]] == [[image_tag]]
    assert len(listed["containers"]) == 1

    assert main(["sandbox", "prune", "--task", task.name, "--dry-run", "--json"]) == 0
    planned = json.loads(capsys.readouterr().out)
    assert planned["removed_images"] == [image_tag]
    assert len(leftover_containers(docker_client)) == 1

    assert main(["sandbox", "prune", "--task", task.name]) == 0
    out = capsys.readouterr().out
    assert "removed 1 container(s) and 1 image(s)" in out
    assert leftover_containers(docker_client) == []
    assert docker_client.images.list(filters={"label": f"{TASK_LABEL}={task.name}"}) == []
    # The base image is never pruned without --include-base. Shown on a base image this
    # test makes itself: the engine's python:3.11-slim may not be lmr-author's at all.
    base_tag = f"lmr-author-test/base:{task.name.lower()}"
    base, _ = docker_client.images.build(
        fileobj=io.BytesIO(b"FROM python:3.11-slim\n"),
        tag=base_tag,
        labels={LABEL_KEY: KIND_BASE, TASK_LABEL: task.name},
        rm=True,
    )
    assert main(["sandbox", "prune", "--task", task.name]) == 0
    assert base_tag not in capsys.readouterr().out
    assert docker_client.images.get(base_tag).id == base.id
    assert main(["sandbox", "prune", "--task", task.name, "--include-base", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["removed_images"] == [base_tag]
    assert docker_client.images.list(filters={"label": f"{TASK_LABEL}={task.name}"}) == []


def test_prune_keep_removes_only_outdated_images(
    task_factory: Callable[..., Task],
    docker_client: Any,
    capsys: pytest.CaptureFixture[str],
) -> None:
    task = task_factory(tag="keep")
    assert main(["sandbox", "build", str(task.path), "-q"]) == 0
    (task.repo_dir / "calc.py").write_text("# changed\n" + (task.repo_dir / "calc.py").read_text())
    assert main(["sandbox", "build", str(task.path), "-q"]) == 0
    capsys.readouterr()
    tags = sorted(
        tag
        for image in docker_client.api.images(filters={"label": f"{TASK_LABEL}={task.name}"})
        for tag in image["RepoTags"]
    )
    assert len(tags) == 2
    assert main(["sandbox", "prune", "--task", task.name, "--keep", str(task.path.parent)]) == 0
    out = capsys.readouterr().out
    assert "removed 0 container(s) and 1 image(s)" in out
    remaining = [
        tag
        for image in docker_client.api.images(filters={"label": f"{TASK_LABEL}={task.name}"})
        for tag in image["RepoTags"]
    ]
    assert len(remaining) == 1
    assert f"kept current image {remaining[0]}" in out
    assert main(["sandbox", "prune", "--keep", str(task.path / "missing")]) == 2
    assert "no such folder" in capsys.readouterr().err
