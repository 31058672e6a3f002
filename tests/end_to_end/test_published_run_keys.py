"""A published-layout benchmark's run keys can be recorded and compared (issue 31).

``benchmarks/published_run_keys.py`` records, for the golden and the masked files of
every task that loads, what a resumed ``eval`` keys its runs on; ``--compare`` names
what changed, task by task. Here on tasks of our own in the published shapes
(`tests.support.published_task`, `tests.support.isolation_tasks`), run as a user runs it.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support import isolation_tasks, published_task
from tests.support.sandbox_tasks import task_name

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "published_run_keys.py"
BASE_IMAGE = "lmr-standin:recipe"


def _keys(bench: Path, *mode: str) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, str(SCRIPT), str(bench), "--base-image", BASE_IMAGE, *mode]
    return subprocess.run(argv, capture_output=True, text=True, timeout=300)


@pytest.fixture
def bench(tmp_path: Path) -> Path:
    """One task of each published shape, and one that does not load (no repository)."""
    root = tmp_path / "bench"
    root.mkdir()
    published_task.write_published_task(root, task_name("PubKeys"))
    isolation_tasks.write_isolation_task(root, tag="IsoKeys")
    broken = published_task.write_published_task(root, task_name("PubKeysNoRepo"))
    shutil.rmtree(broken / published_task.REPO)
    return root


def _written(bench: Path, record: Path) -> dict[str, Any]:
    done = _keys(bench, "--write", str(record))
    assert done.returncode == 0, done.stderr
    data: dict[str, Any] = json.loads(record.read_text(encoding="utf-8"))
    return data


def _groups(stdout: str) -> dict[str, list[str]]:
    """The compare output's differences: task -> its lines (without the summary)."""
    groups: dict[str, list[str]] = {}
    current = ""
    for line in stdout.splitlines()[:-1]:
        if line.startswith("  "):
            groups[current].append(line.strip())
        else:
            current = line.removesuffix(":")
            groups[current] = []
    return groups


def test_the_record_names_every_run_and_compares_equal_to_itself(
    bench: Path, tmp_path: Path
) -> None:
    record = tmp_path / "keys.json"
    data = _written(bench, record)
    pub, iso = task_name("PubKeys"), task_name("IsoKeys")
    assert data["not_loaded"] == [task_name("PubKeysNoRepo")]
    tasks = data["tasks"]
    assert set(tasks) == {pub, iso}
    indices = [goal.index for goal in isolation_tasks.GOALS]
    assert set(tasks[iso]["runs"]) == {f"{s}#{i}" for s in ("golden", "masked") for i in indices}
    assert set(tasks[pub]["runs"]) == {"golden#1", "masked#1"}
    golden, masked = tasks[pub]["runs"]["golden#1"], tasks[pub]["runs"]["masked#1"]
    assert golden["candidate_sha256"] == hashlib.sha256(published_task.GOLDEN.encode()).hexdigest()
    assert masked["candidate_sha256"] == hashlib.sha256(published_task.MASKED.encode()).hexdigest()
    assert tasks[pub]["image"].startswith(f"lmr-author/{pub.lower()}:")
    keys = [run["run_key"] for task in tasks.values() for run in task["runs"].values()]
    assert len(set(keys)) == len(keys) == 2 + 2 * len(indices)
    assert data["settings"]["limits"]["timeout_s"] == 600.0

    same = _keys(bench, "--compare", str(record))
    assert same.returncode == 0, same.stdout + same.stderr
    assert same.stdout.splitlines()[-1].endswith("all equal")
    # Sorted and stable: the same benchmark writes the same bytes.
    again = tmp_path / "again.json"
    _written(bench, again)
    assert again.read_bytes() == record.read_bytes()


def test_an_edited_test_file_is_a_difference_of_its_task_only(bench: Path, tmp_path: Path) -> None:
    record = tmp_path / "keys.json"
    _written(bench, record)
    iso = bench / task_name("IsoKeys")
    test_file = iso / isolation_tasks.REPO / isolation_tasks.goal(2).unit_test_file
    test_file.write_text(test_file.read_text() + "# one more line\n")

    changed = _keys(bench, "--compare", str(record))
    assert changed.returncode == 1, changed.stdout + changed.stderr
    groups = _groups(changed.stdout)
    assert list(groups) == [iso.name]
    # The test file is in the image, so every run's key changes; no candidate does.
    names = {line.split(":")[0] for line in groups[iso.name]}
    runs = [f"{s}#{goal.index}" for s in ("golden", "masked") for goal in isolation_tasks.GOALS]
    assert names == {"image"} | {f"{run} run_key" for run in runs}
    assert changed.stdout.splitlines()[-1].endswith(f"differences in 1 part(s): {iso.name}")


def test_an_edited_golden_file_changes_that_run_alone(bench: Path, tmp_path: Path) -> None:
    record = tmp_path / "keys.json"
    _written(bench, record)
    pub = bench / task_name("PubKeys")
    golden = pub / "golden_files" / "metrics_golden.py"
    golden.write_text(golden.read_text() + "\n# a comment\n")

    changed = _keys(bench, "--compare", str(record))
    assert changed.returncode == 1, changed.stdout + changed.stderr
    # Golden files never enter the image: only that candidate and its key differ.
    lines = _groups(changed.stdout)[pub.name]
    assert [line.split(":")[0] for line in lines] == [
        "golden#1 candidate_sha256",
        "golden#1 run_key",
    ]


def test_a_record_that_is_not_json_is_refused_with_its_name(bench: Path, tmp_path: Path) -> None:
    record = tmp_path / "keys.json"
    record.write_text("{not json", encoding="utf-8")
    refused = _keys(bench, "--compare", str(record))
    assert refused.returncode == 2
    assert str(record) in refused.stderr and "Traceback" not in refused.stderr
