"""validate --run's look into the task's image: the goal among its installed packages.

One small image (python:3.11-slim and a package copied into dist-packages with its
dist-info), one scan per test; the golden code never enters the container.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lmr_author.domain.task import load_task
from lmr_author.images.task_images import ImageRef, ensure_image
from lmr_author.leaks.goal_code import goal_code
from lmr_author.leaks.installed import installed_copies
from lmr_author.validate.rules_leaks import installed_findings
from tests.leaks.support import RENAMED, SAME_NAME_DIFFERENT, published_task
from tests.support.sandbox_tasks import SESSION

pytestmark = [pytest.mark.docker, pytest.mark.usefixtures("image_cleanup")]

SITE = "/usr/local/lib/python3.11/dist-packages"


@pytest.fixture(scope="module")
def installed(
    tmp_path_factory: pytest.TempPathFactory, docker_client: Any
) -> tuple[Path, ImageRef]:
    """A published-shape task whose image has fastweights 1.0 installed, holding a copy."""
    task = published_task(tmp_path_factory.mktemp("installed"), f"88-Installed-{SESSION}")
    vendor = task / "vendor"
    (vendor / "fastweights").mkdir(parents=True)
    (vendor / "fastweights" / "__init__.py").write_text("")
    (vendor / "fastweights" / "core.py").write_text("import math\n\n\n" + RENAMED)
    info = vendor / "fastweights-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: fastweights\nVersion: 1.0\n")
    (info / "RECORD").write_text(
        "fastweights/__init__.py,,\nfastweights/core.py,,\nfastweights-1.0.dist-info/METADATA,,\n"
    )
    dockerfile = task / "Dockerfile"
    dockerfile.write_text(dockerfile.read_text() + f"\nCOPY vendor/ {SITE}/\n")
    return task, ensure_image(load_task(task), client=docker_client)


def test_a_copy_in_an_installed_package_names_package_and_module(
    installed: tuple[Path, ImageRef], docker_client: Any
) -> None:
    task_dir, image = installed
    task = load_task(task_dir)
    [finding] = installed_findings(task, image, docker_client)
    assert finding.rule == "answer-leak-installed" and finding.severity == "error"
    assert finding.file == f"{SITE}/fastweights/core.py" and finding.where == "lines 5-13"
    assert "package fastweights, module fastweights.core" in finding.message
    assert "'fastweights.core.combine'" in finding.message


def test_a_goal_not_installed_is_not_found(
    installed: tuple[Path, ImageRef], docker_client: Any
) -> None:
    _, image = installed
    goals = goal_code(SAME_NAME_DIFFERENT, "weighted_mean")
    assert installed_copies(goals, image, docker_client) == []
