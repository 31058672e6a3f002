"""`new-task --spec` end to end on a repository that needs pandas and SciPy.

Environment proposed -> image built (dependencies from the package index, through the
host's CA when it names one) -> fixtures recorded in Docker, twice -> verified in Docker
-> saved -> `lmr-author validate --run` green. The host never imports pandas or SciPy:
they exist only in the task's image.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from lmr_author.authoring.paper_pdf import make_paper_pdf
from lmr_author.cli import main
from tests.support.real_repo import (
    DRIVER,
    GOAL_FILE,
    GOAL_FUNCTION,
    LAX_DRIVER,
    NOISY_DRIVER,
    write_real_repo,
)

pytestmark = [pytest.mark.docker, pytest.mark.slow]
ROOT = Path(__file__).resolve().parents[3]


def _spec(tmp_path: Path, driver: str = DRIVER, **extra: Any) -> Path:
    repo = write_real_repo(tmp_path)
    pdf = tmp_path / "paper.pdf"
    make_paper_pdf(
        "Robust Outlier Scores",
        [("Method", "The robust score is z = (x - median) / MAD, Eq. (2).")],
        pdf,
    )
    spec = {
        "folder_name": "91-Outliers",
        "source": str(repo),
        "paper_pdf": str(pdf),
        "paper_name": "Robust Outlier Scores",
        "year": 2024,
        "goals": [
            {
                "goal_file": GOAL_FILE,
                "goal_function": GOAL_FUNCTION,
                "instruction": "Implement `robust_scores` in outliers/scores.py (Section 3).",
                "category": "Evaluation Metrics",
                "driver": driver,
            }
        ],
        **extra,
    }
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(spec), encoding="utf-8")
    return path


def _host_without(tmp_path: Path, *modules: str) -> dict[str, str]:
    """An environment whose Python fails on importing ``modules`` (as if not installed)."""
    poison = tmp_path / "poison"
    for name in modules:
        (poison / name).mkdir(parents=True)
        (poison / name / "__init__.py").write_text(
            f"raise ImportError('the host imported {name}: it belongs in the task image')\n"
        )
    path = os.pathsep.join([str(poison), str(ROOT), os.environ.get("PYTHONPATH", "")])
    return {**os.environ, "PYTHONPATH": path}


def _lmr_author(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "lmr_author", *args],
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=1200,
    )


def test_spec_builds_records_verifies_and_saves_in_docker(
    tmp_path: Path, docker_client: Any
) -> None:
    spec = _spec(tmp_path)
    bench = tmp_path / "bench"
    # The host cannot import pandas, SciPy or scikit-learn: only the image has them.
    env = _host_without(tmp_path, "pandas", "scipy", "sklearn")
    started = time.monotonic()
    made = _lmr_author(env, "new-task", "--spec", str(spec), "--into", str(bench))
    print(f"new-task --spec took {time.monotonic() - started:.1f} s")
    assert made.returncode == 0, made.stdout + made.stderr
    out = made.stdout
    assert "pandas>=2.0  (requirements.txt line 1" in out
    assert "scipy  (import in outliers/mad.py" in out
    assert "not needed by the goal: matplotlib" in out
    task_dir = bench / "91-Outliers"
    info = json.loads((task_dir / "info.json").read_text(encoding="utf-8"))
    assert info["instance_id"] == 91 and info["year"] == 2024
    requirements = (task_dir / "requirements.txt").read_text(encoding="utf-8")
    assert "pandas" in requirements and "scipy" in requirements
    assert "matplotlib" not in requirements
    assert "requirements.txt" in (task_dir / "Dockerfile").read_text(encoding="utf-8")
    assert len(list((task_dir / "expected_outputs" / "unit_test_1").glob("*.json"))) == 3
    checked = _lmr_author(env, "validate", "--run", str(task_dir))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "91-Outliers  ok" in checked.stdout


def test_nondeterministic_golden_is_refused_then_seeded(
    tmp_path: Path, docker_client: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    noisy = tmp_path / "noisy"
    noisy.mkdir()
    spec = _spec(noisy, driver=NOISY_DRIVER)
    data = json.loads(spec.read_text(encoding="utf-8"))
    data["goals"][0].update(goal_file="outliers/noisy.py", goal_function="jitter")
    spec.write_text(json.dumps(data), encoding="utf-8")
    bench = tmp_path / "bench"
    assert main(["new-task", "--spec", str(spec), "--into", str(bench)]) == 1
    err = capsys.readouterr().err
    assert "not deterministic" in err and "jitter_1.json" in err and "seeding" in err
    assert not (bench / "91-Outliers").exists()
    data["seed"] = True
    spec.write_text(json.dumps(data), encoding="utf-8")
    assert main(["new-task", "--spec", str(spec), "--into", str(bench)]) == 0
    assert main(["validate", "--run", str(bench / "91-Outliers")]) == 0


def test_unverified_task_is_not_written_without_confirmation(
    tmp_path: Path, docker_client: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = _spec(tmp_path)
    data = json.loads(spec.read_text(encoding="utf-8"))
    # A driver whose calls all return None and change nothing: the fixtures would pass
    # any function that returns None, so the task is not verified.
    data["goals"][0].update(
        goal_file="outliers/checks.py", goal_function="check_values", driver=LAX_DRIVER
    )
    spec.write_text(json.dumps(data), encoding="utf-8")
    bench = tmp_path / "bench"
    assert main(["new-task", "--spec", str(spec), "--into", str(bench)]) == 1
    err = capsys.readouterr().err
    assert "not saved" in err and "replay-tests-nothing" in err and "--allow-unverified" in err
    assert not (bench / "91-Outliers").exists()
    argv = ["new-task", "--spec", str(spec), "--into", str(bench), "--allow-unverified"]
    assert main(argv) == 0
    assert (bench / "91-Outliers" / "info.json").is_file()
