"""A batch of candidates in one container (`lmr_author.sandbox.batch`), against Docker.

Each candidate of a batch starts from what a fresh container gives: what the one
before it left (a file in its home or temporary folder, a process still running) is
gone. A candidate that a limit ends gets what a normal run gives it: out of time, in
the batch; out of memory, by a normal run the batch hands it to. And ``--verbose``
shows where one normal run's time went.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from lmr_author.domain.task import Task
from lmr_author.images.task_images import ImageRef
from lmr_author.sandbox import batch
from lmr_author.sandbox.limits import Limits
from lmr_author.sandbox.run_result import ImplementationRun
from lmr_author.sandbox.run_spec import RunSpec
from lmr_author.sandbox.runner import run_tests

pytestmark = [pytest.mark.docker, pytest.mark.usefixtures("image_cleanup", "no_leftovers")]


def _goal(body: str) -> bytes:
    return ("import os, tempfile, subprocess\n\n\ndef add(a, b):\n" + body).encode()


LEAVES = _goal(
    textwrap.indent(
        textwrap.dedent(
            """\
            for folder in (os.path.expanduser("~"), tempfile.gettempdir()):
                with open(os.path.join(folder, "left-behind"), "w") as handle:
                    handle.write("x")
            subprocess.Popen(["sleep", "600"], start_new_session=True)
            return a + b
            """
        ),
        "    ",
    )
)
#: Right only when nothing of a candidate before it is there.
LOOKS = _goal(
    textwrap.indent(
        textwrap.dedent(
            """\
            folders = (os.path.expanduser("~"), tempfile.gettempdir())
            found = [f for f in folders if os.path.exists(os.path.join(f, "left-behind"))]
            for pid in os.listdir("/proc"):
                try:
                    with open(f"/proc/{pid}/cmdline", "rb") as handle:
                        found += [pid] if handle.read().startswith(b"sleep") else []
                except OSError:
                    pass
            return a + b if not found else a - b
            """
        ),
        "    ",
    )
)
LOOPS = _goal("    while True:\n        pass\n")
HOGS = _goal("    held = b'x' * (400 << 20)\n    return a + b + len(held) * 0\n")


def _seen(run: ImplementationRun) -> tuple[Any, ...]:
    return run.verdict, [(v.verdict, v.reason, v.tests_run) for v in run.verdicts]


@pytest.mark.timeout(600)
def test_each_candidate_starts_afresh_and_limits_end_it_as_a_normal_run_does(
    calc_task: tuple[Task, ImageRef], docker_client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    task, image = calc_task
    impl = task.implementations[0]
    limits = Limits(timeout_s=8, memory_mb=256)
    candidates = {
        "leaves": LEAVES,
        "looks": LOOKS,
        "loops": LOOPS,
        "looks again": LOOKS,
        "hogs": HOGS,
        "golden": impl.golden_path.read_bytes(),
    }
    specs = [
        RunSpec(task, impl, source, image, limits, label=name)
        for name, source in candidates.items()
    ]
    handed: list[str] = []

    def normal(spec: RunSpec, **kwargs: Any) -> ImplementationRun:
        handed.append(spec.label)
        return run_tests(spec, **kwargs)

    monkeypatch.setattr(batch, "run_tests", normal)
    done: list[int] = []
    outcomes = batch.run_batched(specs, client=docker_client, on_done=done.append)
    shared = dict(zip(candidates, outcomes, strict=True))
    # Only the candidate a memory kill ended ran again, the normal way; the others were
    # told as their results came out of the container (progress), in order.
    assert handed == ["hogs"]
    assert done == [0, 1, 3, 5]
    assert shared["looks"].passed and shared["looks again"].passed, shared["looks"].reason
    assert shared["loops"].verdict == "timeout"
    assert shared["hogs"].verdict == "error" and "out of memory" in shared["hogs"].reason
    for name, spec in zip(candidates, specs, strict=True):
        if name != "hogs":
            assert _seen(shared[name]) == _seen(run_tests(spec, client=docker_client)), name


def test_sandbox_run_verbose_shows_where_the_time_went(
    calc_task: tuple[Task, ImageRef], capsys: pytest.CaptureFixture[str]
) -> None:
    from lmr_author.cli import main

    task, _ = calc_task
    assert main(["sandbox", "run", str(task.path), "--verbose"]) == 0
    out = capsys.readouterr().out
    for phase in ("create the container", "copy in", "imports before the fork", "the test"):
        assert phase in out
    assert "calls to the candidate (2)" in out
    total = [line for line in out.splitlines() if line.strip().startswith("total")]
    assert len(total) == 1 and float(total[0].split()[1]) > 0


def test_eval_verbose_shows_where_each_runs_time_went(
    calc_task: tuple[Task, ImageRef], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from lmr_author.cli import main

    task, _ = calc_task
    impl = task.implementations[0]
    goal = tmp_path / "golden" / task.name / task.repo_folder_name / impl.goal_file
    goal.parent.mkdir(parents=True)
    goal.write_bytes(impl.golden_path.read_bytes())
    bench = tmp_path / "bench"
    bench.mkdir()
    (bench / task.name).symlink_to(task.path)
    argv = ["eval", str(bench), "-s", str(tmp_path / "golden"), "-o", str(tmp_path / "out")]
    assert main([*argv, "--verbose"]) == 0
    err = capsys.readouterr().err
    assert f"{task.name} #1 {impl.unit_test_file}:" in err
    assert "imports before the fork" in err and "remove the container" in err


@pytest.mark.timeout(600)
def test_later_candidates_have_the_shared_libraries_only_as_in_a_normal_run(
    tmp_path: Path, docker_client: Any
) -> None:
    """After the first mutant, test processes come from a warm child that imported what
    the first test imported late (``numpy.testing``, which the test preloads after its
    fork); a candidate's process never has it, as a normal run's never does."""
    from lmr_author.domain.task import load_task
    from lmr_author.images.task_images import ensure_image
    from tests.support.isolation_tasks import LION, write_isolation_task

    task = load_task(write_isolation_task(tmp_path / "bench"))
    impl = task.implementation(LION.index)
    image = ensure_image(task, client=docker_client)
    check = (
        "    loss = None\n"
        "    import sys\n"
        '    assert "numpy.testing" not in sys.modules, "the test\'s imports"\n'
    )
    looks = LION.goal_file_with(LION.golden.replace("    loss = None\n", check)).encode()
    assert looks != LION.goal_file_with(LION.golden).encode()
    specs = [RunSpec(task, impl, looks, image, Limits(), label=f"m{n}") for n in range(3)]
    slots = batch._run_slots(docker_client, specs, impl.unit_test_file)
    assert [slot[0].report.stamps.get("warm") for slot in slots if slot] == [0.0, 1.0, 1.0]
    seen = [[record.outcome for record in slot[0].report.records] for slot in slots if slot]
    assert seen == [["passed"] * 4] * 3, seen
    assert run_tests(specs[0], client=docker_client).passed
