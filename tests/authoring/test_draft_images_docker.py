"""Images that follow the repository, in Docker: a changed repository makes the next
build a new image and removes the draft's older one; Save writes the verified build
without building or recording again, and the task keeps one image: the verified one,
under the tag eval computes, even after the mutation score went into info.json."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lmr_author.authoring.image_build import build_environment
from lmr_author.authoring.save import run_mutation_checks, run_save_checks, save_draft_task
from lmr_author.authoring.spec import GoalSpec, TaskSpec
from lmr_author.domain.test_strength import MUTATION_SCORE_KEY
from lmr_author.images.task_images import ensure_image
from lmr_author.runtime import KIND_TASK_IMAGE, LABEL_KEY, TASK_LABEL
from tests.support.notebook_repo import DRIVER, notebook_repo

pytestmark = [pytest.mark.docker, pytest.mark.slow]

GOAL = "analysis/analysis_after_processing.py"


def _exists(client: Any, tag: str) -> bool:
    import docker.errors

    try:
        client.images.get(tag)
    except docker.errors.ImageNotFound:
        return False
    return True


def test_a_task_keeps_one_image_and_save_reuses_the_verified_build(
    tmp_path: Path, docker_client: Any
) -> None:
    from lmr_author.sandbox.housekeeping import prune

    repo = notebook_repo(tmp_path / "gap-repo")
    folder = f"95-OneImage{tmp_path.name[-6:].replace('_', '')}"
    spec = TaskSpec(
        folder_name=folder,
        source=str(repo),
        repo_path=str(repo),
        year=2025,
        instance_id=95,
        paper_later=True,
        guarded_files=[GOAL],
        goals=[GoalSpec(GOAL, "get_delta", instruction="Implement get_delta.", driver=DRIVER)],
    )
    try:
        first = build_environment(spec)
        assert first.ok and first.image is not None, first.diagnosis
        (repo / "analysis" / "extra.py").write_text("VALUE = 1\n")  # the repository changes
        second = build_environment(spec)
        assert second.ok and second.image is not None
        assert second.image.tag != first.image.tag  # the next build follows the repository
        assert not _exists(docker_client, first.image.tag)  # and the older one is gone
        assert f"{folder.lower()}-env-" in second.image.tag  # sandbox prune --task knows it

        check = run_save_checks(spec)
        assert check.verified, check.reasons
        [verified] = docker_client.images.list(
            filters={"label": [f"{LABEL_KEY}={KIND_TASK_IMAGE}", f"{TASK_LABEL}={folder}"]}
        )
        # The mutation test reuses that build and writes its score into its info.json.
        check, reports = run_mutation_checks(spec)
        assert check.verified and reports and reports[0].total > 0
        steps: list[str] = []
        task = save_draft_task(spec, tmp_path / "bench", on_step=steps.append)
        assert any("without building or recording again" in s for s in steps), steps
        assert not any("recording fixtures" in s for s in steps), steps
        assert (task.repo_dir / "unit_test" / "fixtures").is_dir()
        assert MUTATION_SCORE_KEY in task.implementations[0].extra
        # What validate --run and eval of the saved task find: the verified image, as is.
        image = ensure_image(task, client=docker_client)
        assert not image.built and image.image_id == verified.id
        assert not _exists(docker_client, second.image.tag)  # the environment went with the save
        ours = [
            image
            for image in docker_client.images.list(filters={"label": LABEL_KEY})
            if any(folder.lower() in tag for tag in image.tags)
        ]
        assert len(ours) == 1, [image.tags for image in ours]  # one image for the task
    finally:
        prune(client=docker_client, task=folder)
