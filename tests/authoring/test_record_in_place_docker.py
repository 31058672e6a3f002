"""Recording in the task's image keeps what a call changes in place, and names what a
fixture cannot hold (the same recorder as on the host, its report read from Docker)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lmr_author.authoring.environment import propose_for_draft
from lmr_author.authoring.image_build import build_environment
from lmr_author.authoring.record_docker import record_goal_in_docker
from lmr_author.authoring.spec import GoalSpec, TaskSpec
from lmr_author.util.errors import UserError
from tests.support.optim_repo import CLASS_NAME, DRIVER, GOAL_FILE, GOAL_FUNCTION, write_optim_repo

pytestmark = [pytest.mark.docker, pytest.mark.slow]


def test_in_place_changes_are_recorded_and_closures_refused(
    tmp_path: Path, docker_client: Any
) -> None:
    repo = write_optim_repo(tmp_path)
    goal = GoalSpec(GOAL_FILE, GOAL_FUNCTION, class_name=CLASS_NAME, driver=DRIVER)
    spec = TaskSpec(
        folder_name="93-SignMomentum", source=str(repo), repo_path=str(repo), goals=[goal]
    )
    propose_for_draft(spec)
    built = build_environment(spec)
    assert built.ok and built.image is not None, built.diagnosis
    result = record_goal_in_docker(spec, 0, tmp_path / "task", image=built.image)
    assert result.deterministic and len(result.inputs) == 3
    assert result.changed == ["self"]
    assert "compared on what it returns and on self" in result.message()

    goal.driver = DRIVER.replace("optimizer.step()", "optimizer.step(lambda: 0.0)")
    with pytest.raises(UserError) as caught:
        record_goal_in_docker(spec, 0, tmp_path / "task2", image=built.image, twice=False)
    text = caught.value.render()
    assert "call 1 of SignMomentum.step cannot be recorded" in text
    assert "args[0] (closure)" in text and "without its closure" in text
