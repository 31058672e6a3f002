"""`lmr-author strengthen` for real: recording in the task's image, the proof, the swap,
and the runs eval makes afterwards, on a task of our own in the published shape whose
tests accept wrong answers (`tests.support.loose_tasks`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lmr_author.authoring.strengthen import strengthen_task
from lmr_author.domain.task import load_task
from lmr_author.images.task_images import ensure_image
from lmr_author.sandbox.golden import load_proof, proof_key
from lmr_author.sandbox.limits import Limits
from lmr_author.sandbox.run_spec import RunSpec
from lmr_author.sandbox.runner import run_tests
from lmr_author.validate.task_dir import validate_task_dir
from tests.support.loose_tasks import GOALS, REPO, WRONG, write_loose_task

pytestmark = [pytest.mark.docker, pytest.mark.slow]


def _passes(task_dir: Path, index: int, source: str, client: Any) -> bool:
    """Whether ``source`` passes every test eval runs for implementation ``index``, held
    to the golden proof as eval holds it."""
    task = load_task(task_dir)
    impl = task.implementation(index)
    image = ensure_image(task, client=client)
    proof = load_proof(proof_key(task, impl, image, Limits()))
    spec = RunSpec(task, impl, source.encode(), image).held_to(proof)
    run = run_tests(spec, client=client)
    assert run.infra_error is None, run.infra_error
    assert [v.test_file for v in run.verdicts] == impl.test_files
    return run.passed


def test_wrong_answers_that_passed_fail_after_strengthen_and_the_golden_passes(
    tmp_path: Path, docker_client: Any, image_cleanup: None, no_leftovers: None
) -> None:
    # Each wrong answer passes the published test (test_strengthen_record checks it).
    task_dir = write_loose_task(tmp_path)
    published = sorted(p.name for p in (task_dir / REPO / "unit_test").glob("unit_test_*.py"))
    outcome = strengthen_task(task_dir, mutants=False, client=docker_client)

    assert outcome.written and outcome.error == ""
    items = {item.impl_index: item for item in outcome.implementations}
    assert [index for index, item in items.items() if item.done] == [1, 2, 3]
    # The nondeterministic goal is said, and left as it was: no flaky fixtures.
    assert "no call of noisy_score is left to replay" in items[4].error
    assert "not deterministic" in items[4].error
    task = load_task(task_dir)
    assert task.implementation(4).test_files == ["unit_test/unit_test_4.py"]
    assert not (task_dir / "expected_outputs" / "replay_test_4").exists()
    # The published loop's glob finds the published tests alone, unchanged.
    assert sorted(p.name for p in (task_dir / REPO / "unit_test").glob("unit_test_*.py")) == (
        published
    )
    assert not list(tmp_path.glob(".*strengthen*"))  # the scratch copy is gone
    for index, wrongs in WRONG.items():
        impl = task.implementation(index)
        assert impl.test_files == [
            f"unit_test/unit_test_{index}.py",
            f"unit_test/replay_test_{index}.py",
        ]
        assert _passes(task_dir, index, GOALS[index][3], docker_client)
        for name, source in wrongs.items():
            assert not _passes(task_dir, index, source, docker_client), f"{index} {name} passes"
    assert [f.rule for f in validate_task_dir(task_dir) if f.severity == "error"] == []


def test_the_score_before_and_after_is_printed_and_stored(
    tmp_path: Path,
    docker_client: Any,
    image_cleanup: None,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from lmr_author.cli import main

    task_dir = write_loose_task(tmp_path, goals=(3,))
    assert main(["strengthen", str(task_dir)]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "27-" not in out  # nothing of another task
    assert "replayed by unit_test/replay_test_3.py" in out
    before, after = out.split("mutation score: ", 1)[1].split(" -> ", 1)
    assert int(before.split("%")[0]) < 50 <= 80 <= int(after.split("%")[0])
    info = json.loads((task_dir / "info.json").read_text())
    stored = info["implementations"][0]["mutation_score"]
    assert stored["killed"] >= 0.8 * (stored["mutants"] - stored["not_run"])
    assert [f.rule for f in validate_task_dir(task_dir) if f.rule.startswith(("weak", "mut"))] == []
