"""What `strengthen` records from a task's own tests, without Docker: the real recorder
runs here (as `record_docker.record_calls` runs it in the task's image) on tasks in the
published shapes whose tests accept wrong answers; the replay test it writes then runs
here too, on the golden code and on each wrong answer."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from lmr_author.authoring import fixtures
from lmr_author.authoring.record_docker import CallRecording
from lmr_author.authoring.scaffold import fixture_prefix
from lmr_author.authoring.strengthen_record import (
    Call,
    ReplayPlan,
    plan_replay,
    replay_test_file,
    write_replay,
)
from lmr_author.domain import replay_codec, replay_random
from lmr_author.domain.task import load_task
from lmr_author.util.errors import UserError
from tests.support.loose_tasks import GOALS, REPO, WRONG, write_loose_task


def host_recorder(task_dir: Path, scratch: Path) -> Any:
    """`record_calls` with this Python instead of the task's image: the same recorder,
    the same options, the staged files written over a copy of the repository."""
    runs = iter(range(1000))

    def record(
        image: Any,
        *,
        goal_file: str,
        goal_function: str,
        class_name: str,
        driver: str,
        limit: int,
        staged: dict[str, bytes],
        sample: str,
        preimport: bool,
        **_: Any,
    ) -> CallRecording:
        run = scratch / f"run{next(runs)}"
        repo = shutil.copytree(task_dir / REPO, run / REPO)
        for name, data in staged.items():
            (repo / name).write_bytes(data)
        out, expected = run / "out", run / "expected"
        out.mkdir()
        expected.mkdir()
        script = run / "recorder.py"
        script.write_text(fixtures._RECORDER)
        qualname = f"{class_name}.{goal_function}" if class_name else goal_function
        options = {"sample": sample, "preimport": preimport, "goal_file": goal_file}
        done = subprocess.run(
            [
                sys.executable,
                str(script),
                str(repo),
                goal_file.removesuffix(".py").replace("/", "."),
                qualname,
                str(out),
                str(expected),
                fixture_prefix(goal_function, class_name),
                str(limit),
                replay_codec.__file__,
                driver,
                json.dumps(options),
            ],
            capture_output=True,
            text=True,
            env={"PYTHONPATH": str(repo), "PATH": "/usr/bin:/bin"},
            check=False,
            timeout=120,
        )
        if done.returncode != 0:
            fixtures.raise_if_unstorable(done.stderr, qualname)
            raise UserError(f"the driver failed:\n{done.stderr[-2000:]}")
        summary = fixtures.recorder_summary(done.stdout)
        if not summary.written:
            raise UserError(f"the driver never called {qualname}")
        files = {
            name: ((out / name).read_text(), (expected / name).read_text())
            for name in summary.written
        }
        return CallRecording(
            files, done.stdout, summary.calls, summary.unchecked, summary.stride, summary.module
        )

    return record


def _replay(task_dir: Path, index: int, source: str) -> subprocess.CompletedProcess[str]:
    """The replay test of implementation ``index`` run by hand, with ``source`` as its goal
    file (it compares with the expected outputs beside the task)."""
    repo = task_dir / REPO
    (repo / GOALS[index][0]).write_text(source)
    return subprocess.run(
        [sys.executable, replay_test_file(load_task(task_dir).implementation(index))],
        cwd=repo,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(repo), "PATH": "/usr/bin:/bin"},
        check=False,
        timeout=120,
    )


@pytest.mark.parametrize(("index", "name"), [(i, n) for i, w in WRONG.items() for n in w])
def test_each_wrong_answer_passes_the_published_test(tmp_path: Path, index: int, name: str) -> None:
    task_dir = write_loose_task(tmp_path, goals=(index,))
    repo = task_dir / REPO
    (repo / GOALS[index][0]).write_text(WRONG[index][name])
    done = subprocess.run(
        [sys.executable, f"unit_test/unit_test_{index}.py"],
        cwd=repo,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(repo), "PATH": "/usr/bin:/bin"},
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("index", [1, 2, 3])
def test_the_replay_test_fails_the_wrong_answers_the_published_test_passed(
    tmp_path: Path, index: int
) -> None:
    task_dir = write_loose_task(tmp_path, goals=(index,))
    task = load_task(task_dir)
    impl = task.implementation(index)
    plan = plan_replay(task, impl, None, record=host_recorder(task_dir, tmp_path / "runs"))  # type: ignore[arg-type]
    assert plan.calls and plan.module == GOALS[index][0].removesuffix(".py")
    write_replay(task, impl, plan)
    golden = GOALS[index][3]
    assert _replay(task_dir, index, golden).returncode == 0
    for name, wrong in WRONG[index].items():
        done = _replay(task_dir, index, wrong)
        assert done.returncode != 0, f"{name} passes the replay test"
        assert "differs" in done.stderr


def test_an_optimizers_step_is_compared_on_what_it_changes_in_place(tmp_path: Path) -> None:
    task_dir = write_loose_task(tmp_path, goals=(1,))
    task = load_task(task_dir)
    plan = plan_replay(
        task,
        task.implementation(1),
        None,
        record=host_recorder(task_dir, tmp_path / "runs"),  # type: ignore[arg-type]
    )
    # Three steps, each returning None: what they do is what they change.
    assert [call.origin for call in plan.calls] == ["test call 1", "test call 2", "test call 3"]
    assert all(replay_codec.watched(call.inputs) == ["self"] for call in plan.calls)


def test_a_nondeterministic_goal_is_said_and_not_recorded(tmp_path: Path) -> None:
    task_dir = write_loose_task(tmp_path, goals=(4,))
    task = load_task(task_dir)
    with pytest.raises(UserError) as raised:
        plan_replay(task, task.implementation(4), None, record=host_recorder(task_dir, tmp_path))  # type: ignore[arg-type]
    assert "no call of noisy_score is left to replay" in raised.value.message
    assert "test call 1 left out: not deterministic" in raised.value.message


def test_a_test_that_calls_the_goal_many_times_is_sampled_over_the_whole_run(
    tmp_path: Path,
) -> None:
    task_dir = write_loose_task(tmp_path, goals=(3,))
    test = task_dir / REPO / "unit_test" / "unit_test_3.py"
    # A training loop's worth of calls: 500, of 10 distinct inputs (weights 1 to 10).
    test.write_text(
        test.read_text().replace(
            "for weights in (np.ones(4), np.array([1.0, 2.0, 0.5, 3.0])):",
            "for weights in [np.ones(4) * (1 + n % 10) for n in range(500)]:",
        )
    )
    task = load_task(task_dir)
    plan = plan_replay(
        task,
        task.implementation(3),
        None,  # type: ignore[arg-type]
        limit=8,
        record=host_recorder(task_dir, tmp_path / "runs"),
    )
    assert plan.made == 500
    # Every 64th call from the first (8 of them, spread to call 449)...
    assert any("every 64th call was recorded (8), from the first" in n for n in plan.notes)
    numbers = [int(call.origin.rsplit(" ", 1)[1]) for call in plan.calls]
    assert numbers[0] == 1 and all((n - 1) % 64 == 0 for n in numbers)
    # ... of which calls 321, 385 and 449 repeat calls 1, 65 and 129 (n % 10 again).
    assert numbers == [1, 65, 129, 193, 257]
    assert "3 call(s) repeated an earlier one" in " ".join(plan.notes)


def test_fixtures_over_the_size_cap_are_left_out_and_said(tmp_path: Path) -> None:
    task_dir = write_loose_task(tmp_path, goals=(2,))
    task = load_task(task_dir)
    record = host_recorder(task_dir, tmp_path / "runs")
    whole = plan_replay(task, task.implementation(2), None, record=record)  # type: ignore[arg-type]
    first = whole.calls[0].size
    capped = plan_replay(task, task.implementation(2), None, max_bytes=first, record=record)  # type: ignore[arg-type]
    assert len(capped.calls) == 1 < len(whole.calls)
    assert any("left out to keep the fixtures under" in note for note in capped.notes)


def test_a_goal_defined_in_the_test_file_is_refused(tmp_path: Path) -> None:
    task_dir = write_loose_task(tmp_path, goals=(3,))
    info = json.loads((task_dir / "info.json").read_text())
    info["implementations"][0]["goal_file"] = "unit_test/unit_test_3.py"
    (task_dir / "info.json").write_text(json.dumps(info))
    task = load_task(task_dir)
    with pytest.raises(UserError, match="defined in the task's tests"):
        plan_replay(task, task.implementation(3), None, record=host_recorder(task_dir, tmp_path))  # type: ignore[arg-type]


def test_calls_that_show_no_work_are_refused(tmp_path: Path) -> None:
    task_dir = write_loose_task(tmp_path, goals=(3,))
    task = load_task(task_dir)
    none = replay_codec.dumps(None)

    def record(image: Any, **_: Any) -> CallRecording:
        inputs = replay_codec.document(replay_codec.encode({"args": [1], "kwargs": {}}))
        return CallRecording({"weighted_error_1.json": (inputs, none)}, "", 1)

    with pytest.raises(UserError, match="would pass any function that returns None"):
        plan_replay(task, task.implementation(3), None, record=record)  # type: ignore[arg-type]


def test_a_repeated_call_is_kept_once() -> None:
    from lmr_author.authoring.strengthen_record import _dedupe

    plan = ReplayPlan(1, "unit_test/replay_test_1.py", "m", [])
    plan.calls = [Call("test call 1", "a", "x"), Call("test call 2", "a", "x")]
    plan.calls.append(Call("test call 3", "b", "x"))
    _dedupe(plan)
    assert [c.origin for c in plan.calls] == ["test call 1", "test call 3"]
    assert plan.notes == [
        "1 call(s) repeated an earlier one (same inputs, same outcome) and were kept once"
    ]


def test_a_goal_that_draws_random_numbers_replays_from_where_it_started(tmp_path: Path) -> None:
    """The fixture keeps the states the golden call started from; the replay sets them."""
    np = pytest.importorskip("numpy")
    task_dir = write_loose_task(tmp_path, goals=(3,))
    noisy = GOALS[3][3].replace(
        "return float(", "return float(np.random.normal(0.0, 0.01) + "
    )  # NumPy's global generator, which the test seeds
    (task_dir / "golden_files" / "metric_golden.py").write_text(noisy)
    test = task_dir / REPO / "unit_test" / "unit_test_3.py"
    test.write_text(
        test.read_text().replace("pred = np.array", "np.random.seed(3)\n        pred = np.array")
    )
    task = load_task(task_dir)
    impl = task.implementation(3)
    plan = plan_replay(task, impl, None, record=host_recorder(task_dir, tmp_path / "runs"))  # type: ignore[arg-type]
    assert all("numpy" in json.loads(c.inputs)["random"] for c in plan.calls)
    write_replay(task, impl, plan)
    assert (task_dir / REPO / "unit_test" / "lmr_random.py").is_file()
    assert _replay(task_dir, 3, noisy).returncode == 0
    np.random.seed(0)  # the copy restores a state; here, the module itself does
    replay_random.restore(plan.calls[1].inputs)
    state = np.random.get_state()
    assert state[0] == "MT19937"
