"""Recording in the task's image: the host needs none of the goal's dependencies."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lmr_author.authoring.environment import propose_for_draft
from lmr_author.authoring.image_build import build_environment
from lmr_author.authoring.record_docker import dry_run_in_docker, record_goal_in_docker
from lmr_author.authoring.spec import GoalSpec, TaskSpec
from lmr_author.sandbox.limits import Limits
from lmr_author.util.errors import UserError
from tests.support.real_repo import DRIVER, GOAL_FILE, GOAL_FUNCTION, write_real_repo

pytestmark = [pytest.mark.docker, pytest.mark.slow]


def _spec(tmp_path: Path, driver: str = DRIVER) -> TaskSpec:
    repo = write_real_repo(tmp_path)
    spec = TaskSpec(
        folder_name="92-Outliers",
        source=str(repo),
        repo_path=str(repo),
        goals=[GoalSpec(GOAL_FILE, GOAL_FUNCTION, driver=driver)],
    )
    propose_for_draft(spec)
    return spec


def test_dry_run_and_recording_happen_in_the_image(tmp_path: Path, docker_client: Any) -> None:
    spec = _spec(tmp_path)
    lines: list[str] = []
    built = build_environment(spec, on_log=lines.append)
    assert built.ok and built.image is not None, built.diagnosis
    preview = dry_run_in_docker(spec, 0, image=built.image)
    assert [call.fixture for call in preview] == [f"robust_scores_{n}.json" for n in (1, 2, 3)]
    assert preview[0].args == [[1.0, 2.0, 2.5, 3.0, 40.0], 2.0]
    assert preview[0].output[1][-1] is True  # 40.0 is the outlier
    task_dir = tmp_path / "task"
    result = record_goal_in_docker(spec, 0, task_dir, image=built.image)
    assert result.deterministic and len(result.inputs) == 3
    assert (task_dir / "expected_outputs" / "unit_test_1" / "robust_scores_1.json").is_file()
    # The recorder's container is the sandbox's: its user and its limits, no network.
    spec.goals[0].driver = DRIVER + _PROBE
    seen: list[str] = []
    dry_run_in_docker(spec, 0, image=built.image, on_log=seen.append)
    probe = next(line.split()[1:] for line in seen if line.startswith("LMR-PROBE"))
    assert probe == ["65534", str(Limits().memory_mb << 20), str(Limits().pids), "no-network"]


#: What the recording container is, printed by the driver (cgroup v2 or v1 files).
_PROBE = """
import os
def _first(*paths):
    for path in paths:
        if os.path.exists(path):
            return open(path).read().strip()
memory = _first("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes")
pids = _first("/sys/fs/cgroup/pids.max", "/sys/fs/cgroup/pids/pids.max")
network = "no-network" if os.listdir("/sys/class/net") == ["lo"] else "network"
print("LMR-PROBE", os.getuid(), memory, pids, network, flush=True)
"""


def test_a_missing_dependency_is_named_with_a_hint(tmp_path: Path, docker_client: Any) -> None:
    spec = _spec(tmp_path)
    spec.requirements = "numpy\n"  # pandas and SciPy left out
    built = build_environment(spec)
    assert built.ok and built.image is not None
    with pytest.raises(UserError) as caught:
        record_goal_in_docker(spec, 0, tmp_path / "task", image=built.image)
    text = caught.value.render()
    assert "No module named 'pandas'" in text and "requirements.txt" in text


def test_a_failing_build_is_diagnosed(tmp_path: Path, docker_client: Any) -> None:
    spec = _spec(tmp_path)
    spec.requirements = "sklearn-is-not-a-distribution-lmr==0.0.1\n"
    lines: list[str] = []
    built = build_environment(spec, on_log=lines.append)
    assert not built.ok and built.diagnosis is not None
    assert built.diagnosis.step.startswith("Step ") and "pip install" in built.diagnosis.step
    assert built.diagnosis.cause == "no-matching-distribution"
    assert any("No matching distribution" in line for line in lines)
