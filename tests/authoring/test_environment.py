"""The environment step: dependencies proposed from repository files and goal imports."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from lmr_author.authoring.dockerfile import check_environment, render_task_dockerfile
from lmr_author.authoring.environment import (
    declared_requirements,
    goal_imports,
    propose_environment,
)
from lmr_author.authoring.image_build import diagnose_build
from tests.support.real_repo import GOAL_FILE, write_real_repo


def test_proposal_follows_repo_imports_and_keeps_declared_versions(tmp_path: Path) -> None:
    repo = write_real_repo(tmp_path)
    proposal = propose_environment(repo, [GOAL_FILE])
    by_name = {req.name: req for req in proposal.requirements}
    assert by_name["pandas"].line == "pandas>=2.0"
    assert by_name["pandas"].source.startswith("requirements.txt line 1")
    assert by_name["scipy"].source == "import in outliers/mad.py line 2"  # transitive
    assert [req.name for req in proposal.declared_unused] == ["matplotlib"]
    assert "matplotlib" not in proposal.requirements_txt()


def test_import_names_map_to_distributions(tmp_path: Path) -> None:
    (tmp_path / "goal.py").write_text(
        "import os, json\nimport sklearn.metrics\nfrom PIL import Image\nimport cv2\nimport yaml\n"
    )
    names = {req.name for req in propose_environment(tmp_path, ["goal.py"]).requirements}
    assert names == {"scikit-learn", "pillow", "opencv-python", "pyyaml"}
    assert "os" not in goal_imports(tmp_path, ["goal.py"])


def test_dependency_files_are_read_without_running_them(tmp_path: Path) -> None:
    (tmp_path / "setup.py").write_text(
        "import sys; sys.exit('never run')\nREQS = ['torch>=2.1', 'einops']\n"
        "from setuptools import setup\nsetup(name='x', install_requires=REQS)\n"
    )
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\ndependencies = ["numpy>=1.26"]\n'
        '[tool.poetry.dependencies]\npython = "^3.10"\ntransformers = "^4.40"\n'
    )
    (tmp_path / "setup.cfg").write_text("[options]\ninstall_requires =\n    tqdm>=4\n")
    (tmp_path / "environment.yml").write_text(
        textwrap.dedent(
            """
            dependencies:
              - python=3.10
              - pytorch=2.1.0
              - pip:
                - sentencepiece==0.2.0
            """
        )
    )
    lines = [req.line for req in declared_requirements(tmp_path)]
    assert lines == [
        "numpy>=1.26",
        "transformers>=4.40",
        "torch>=2.1",
        "einops",
        "tqdm>=4",
        "torch==2.1.0",  # conda's pytorch
        "sentencepiece==0.2.0",
    ]


def test_task_dockerfile_installs_requirements_and_passes_the_rule() -> None:
    text = render_task_dockerfile("repo")
    assert "pip install -r /tmp/lmr-author/requirements.txt" in text
    assert check_environment(text, "pandas>=2\nscipy\n", "repo") == []
    gpu = render_task_dockerfile("repo", gpu=True)
    assert gpu.startswith("#") and "FROM nvidia/cuda:" in gpu
    assert check_environment(gpu, "", "repo") == []
    problems = check_environment("RUN echo\n", "pandas>=2\nnot a requirement!!\n", "repo")
    assert {f.rule for f in problems} == {"dockerfile", "requirements"}
    assert any("line 2" in f.message for f in problems)


@pytest.mark.parametrize("gpu", [False, True])
def test_the_install_step_is_the_same_for_every_repository_folder(gpu: bool) -> None:
    """No build arg is declared above the install: its value would enter the RUN's cache
    key, and each task folder would install its dependencies again (issue 30)."""
    first = render_task_dockerfile("repo", gpu=gpu)
    second = render_task_dockerfile("t1", gpu=gpu)
    install = "RUN pip install -r /tmp/lmr-author/requirements.txt"
    assert first.split(install)[0] == second.split(install)[0]
    assert "ARG " not in first.split(install)[0]
    assert "ARG DIR=t1" in second.split(install)[1]
    assert check_environment(second, "pandas>=2\n", "t1") == []


def test_build_diagnosis_names_the_step_and_the_cause() -> None:
    log = [
        "Step 6/14 : RUN pip install -r /tmp/lmr-author/requirements.txt",
        " ---> Running in 1234",
        "ERROR: Could not find a version that satisfies the requirement sklearn",
        "ERROR: No matching distribution found for sklearn",
    ]
    diagnosis = diagnose_build(log)
    assert diagnosis.step.startswith("Step 6/14 : RUN pip install")
    assert diagnosis.cause == "no-matching-distribution"
    assert "scikit-learn" in diagnosis.hint
    tls = diagnose_build(["Step 2/3 : RUN pip install x", "SSL: CERTIFICATE_VERIFY_FAILED"])
    assert tls.cause == "certificate" and "SSL_CERT_FILE" in tls.hint
    assert diagnose_build(["gcc: command not found"]).cause == "compiler"


def test_the_goals_packages_run_first_and_optional_imports_stay_out(tmp_path: Path) -> None:
    """Importing pkg/cross.py runs pkg/__init__.py, whose imports the image needs too;
    a backend imported under ``try: ... except ImportError`` is optional."""
    files = {
        "pyproject.toml": '[project]\nname = "pkg"\ndependencies = ["numpy", "matplotlib>=3.7"]\n',
        "requirements copy.txt": "numpy==1.0\n",
        "requirements.txt": "numpy==1.0\n",
        "pkg/__init__.py": "from .report import plot\nfrom .backends import load\n",
        "pkg/report.py": "import matplotlib\n\ndef plot():\n    pass\n",
        "pkg/backends/__init__.py": (
            "try:\n    from . import fast\nexcept ImportError:\n    fast = None\n\n"
            "def load():\n    pass\n"
        ),
        "pkg/backends/fast.py": "import jax\n",
        "pkg/cross.py": "import numpy as np\n\ndef cross(a):\n    return np.outer(a, a)\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    proposal = propose_environment(tmp_path, ["pkg/cross.py"])
    proposed = {req.name: req.source for req in proposal.requirements}
    assert set(proposed) == {"numpy", "matplotlib"}
    assert "pkg/report.py" in proposed["matplotlib"]
    assert proposed["numpy"].startswith("requirements.txt")  # the canonical file is cited


def test_requirements_files_named_otherwise_are_read_first(tmp_path: Path) -> None:
    (tmp_path / "gps.py").write_text("import torch\nimport numpy as np\nfrom scipy import stats\n")
    (tmp_path / "paper2code_requirements.txt").write_text(
        "torch >= 2.0  # the CPU wheel will do\nnumpy==1.26.4 --hash=sha256:abc\n"
    )
    (tmp_path / "requirements").mkdir()
    (tmp_path / "requirements" / "base.txt").write_text("scipy>=1.11\n-r extra.txt\n")
    (tmp_path / "requirements" / "extra.txt").write_text("-r base.txt\neinops\n")  # a loop
    (tmp_path / "conda_env.yaml").write_text("dependencies:\n  - pytorch=2.1\n")
    (tmp_path / "config.yml").write_text("dependencies:\n  - not-a-dependency-file\n")
    proposal = propose_environment(tmp_path, ["gps.py"])
    by_name = {req.name: req for req in proposal.requirements}
    assert by_name["torch"].line == "torch>=2.0"  # the declared version, not an import guess
    assert by_name["torch"].source == "paper2code_requirements.txt line 1; import in gps.py line 1"
    assert by_name["numpy"].line == "numpy==1.26.4"  # pip's options are no part of it
    assert by_name["scipy"].source.startswith("requirements/base.txt line 1")
    assert [req.line for req in proposal.declared_unused] == ["einops"]  # torch: declared above
    assert proposal.files == [
        "paper2code_requirements.txt",
        "requirements/base.txt",
        "conda_env.yaml",
    ]


def test_a_requirements_file_including_another_is_read_with_it(tmp_path: Path) -> None:
    (tmp_path / "requirements.txt").write_text("-r requirements/cpu.txt\npandas\n")
    (tmp_path / "requirements").mkdir()
    (tmp_path / "requirements" / "cpu.txt").write_text("torch==2.2.0\n")
    found = [(req.line, req.source) for req in declared_requirements(tmp_path)]
    assert found == [
        ("torch==2.2.0", "requirements/cpu.txt line 1"),
        ("pandas", "requirements.txt line 2"),
    ]


def test_a_dependency_file_outside_the_repository_is_not_read(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("leaked-name==1.0\n")
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "dev-requirements.txt").symlink_to(outside / "secret.txt")
    (repo / "requirements.txt").write_text("-r ../outside/secret.txt\nnumpy\n")
    assert [req.line for req in declared_requirements(repo)] == ["numpy"]
