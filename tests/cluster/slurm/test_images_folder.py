"""``eval --executor slurm --images DIR`` / ``--registry REGISTRY``: a node whose engine
lacks the run's image loads it from what ``lmr-author sandbox save`` wrote (or pulls what
``sandbox push`` pushed), checked by id, instead of an infrastructure error. The image
is removed from the engine between submission and run (by an ``sbatch`` in front of the
real one), so the node really lacks it.
"""

from __future__ import annotations

import contextlib
import shutil
from pathlib import Path
from typing import Any

import pytest

from lmr_author.domain.task import Task
from lmr_author.images.archives import archive_name, save_image
from lmr_author.images.registry import push_image
from lmr_author.images.task_images import ensure_image
from tests.cluster.slurm.conftest import jobs_of
from tests.support.eval_cli import eval_json
from tests.support.registry import registry
from tests.support.sandbox_tasks import GOLDEN, write_task

__all__ = ["registry"]

pytestmark = [
    pytest.mark.docker,
    pytest.mark.slurm,
    pytest.mark.slow,
    pytest.mark.usefixtures("slurm", "no_leftovers", "image_cleanup"),
]


def _sbatch_removing(image_id: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An sbatch that first removes the image whose id is in the returned file."""
    real = shutil.which("sbatch")
    docker = shutil.which("docker")
    assert real is not None and docker is not None
    wrapper = tmp_path / "bin" / "sbatch"
    wrapper.parent.mkdir()
    victim = tmp_path / "remove-this-image"
    victim.write_text(image_id)
    # The options checked before anything is built (--test-only) are no submission.
    wrapper.write_text(
        f'#!/bin/sh\ncase " $* " in *" --test-only "*) exec {real} "$@" ;; esac\n'
        f'{docker} image rm --force "$(cat {victim})" >/dev/null 2>&1\n'
        f'# and\nexec {real} "$@"\n'
    )
    wrapper.chmod(0o755)
    monkeypatch.setenv("PATH", f"{wrapper.parent}:{Path(real).parent}:/usr/bin:/bin")
    return victim


def _setup(
    tmp_path: Path, docker_client: Any, *, tag: str = "imgdir", base_image: str | None = None
) -> tuple[Task, Path, str]:
    task = write_task(tmp_path / "bench", tag=tag)
    target = tmp_path / "subs" / "golden" / task.name / "calc_repo" / "calc.py"
    target.parent.mkdir(parents=True)
    target.write_text(GOLDEN)
    image_id = ensure_image(task, client=docker_client, base_image=base_image).image_id
    return task, tmp_path / "subs" / "golden", image_id


def test_a_node_loads_the_missing_image_from_the_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, docker_client: Any
) -> None:
    task, system, image_id = _setup(tmp_path, docker_client)
    images = tmp_path / "images"
    save_image(image_id, images)
    _sbatch_removing(image_id, tmp_path, monkeypatch)

    results = eval_json(
        task.path.parent,
        [system],
        tmp_path / "out",
        capsys,
        "--executor",
        "slurm",
        "--images",
        str(images),
    )

    [run] = results["runs"]
    assert run["verdict"] == "pass" and run["image_id"] == image_id, run
    assert docker_client.images.get(image_id).id == image_id  # loaded again, by the node
    assert jobs_of(tmp_path) == []


def test_a_wrong_or_missing_archive_is_an_infrastructure_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, docker_client: Any
) -> None:
    task, system, image_id = _setup(tmp_path, docker_client)
    bench = task.path.parent
    images = tmp_path / "images"
    images.mkdir()
    victim = _sbatch_removing(image_id, tmp_path, monkeypatch)
    slurm = ["--executor", "slurm", "--images", str(images)]

    missing = eval_json(bench, [system], tmp_path / "out", capsys, *slurm, status=1)
    [run] = missing["runs"]
    assert run["verdict"] == "infra-error", run
    assert f"has no {archive_name(image_id)}" in run["reason"], run

    # An archive of another image under the name of the run's image: refused, not run.
    image_id = ensure_image(task, client=docker_client).image_id  # built again here
    victim.write_text(image_id)
    base = docker_client.images.get("python:3.11-slim").id
    other, _ = save_image(base, tmp_path / "other")
    other.rename(images / archive_name(image_id))
    forged = eval_json(bench, [system], tmp_path / "out", capsys, *slurm, status=1)
    [run] = forged["runs"]
    assert run["verdict"] == "infra-error", run
    assert "not the one its name says" in run["reason"], run
    assert jobs_of(tmp_path) == []


def test_a_node_without_the_submitters_base_image_runs_the_keyed_image(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, docker_client: Any
) -> None:
    """A node that only loaded the task image (not its base) finds it by id: the content
    tag it would compute differs there, and building again would not give that id."""
    base = f"lmr-author-test-base:{tmp_path.name.lower()[-20:]}"
    docker_client.images.get("python:3.11-slim").tag(base)
    try:
        task, system, image_id = _setup(tmp_path, docker_client, tag="nobase", base_image=base)
        images = tmp_path / "images"
        save_image(image_id, images)
        victim = _sbatch_removing(image_id, tmp_path, monkeypatch)
        # Also take the base image's name away, as on a node that never had it.
        wrapper = victim.parent / "bin" / "sbatch"
        untag = f"{shutil.which('docker')} image rm {base} >/dev/null 2>&1\n"
        wrapper.write_text(wrapper.read_text().replace("# and\n", untag, 1))
        results = eval_json(
            task.path.parent,
            [system],
            tmp_path / "out",
            capsys,
            "--base-image",
            base,
            "--executor",
            "slurm",
            "--images",
            str(images),
        )
        [run] = results["runs"]
        assert run["verdict"] == "pass" and run["image_id"] == image_id, run
        assert base not in str(docker_client.images.list())  # the node really lacked it
    finally:
        with contextlib.suppress(Exception):
            docker_client.images.remove(base, noprune=True)
    assert jobs_of(tmp_path) == []


def test_a_node_pulls_the_missing_image_from_the_registry(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: Any,
    docker_client: Any,
    registry: str,
) -> None:
    task, system, image_id = _setup(tmp_path, docker_client)
    push_image(docker_client, registry, task, ensure_image(task, client=docker_client))
    _sbatch_removing(image_id, tmp_path, monkeypatch)

    results = eval_json(
        task.path.parent,
        [system],
        tmp_path / "out",
        capsys,
        "--executor",
        "slurm",
        "--registry",
        registry,
    )

    [run] = results["runs"]
    assert run["verdict"] == "pass" and run["image_id"] == image_id, run
    assert docker_client.images.get(image_id).id == image_id  # pulled by the node
    assert jobs_of(tmp_path) == []
