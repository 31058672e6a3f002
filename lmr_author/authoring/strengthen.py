"""`lmr-author strengthen`: tests that catch wrong answers, for published and imported tasks.

A published test is often loose (a shape checked, a tolerance of 0.1, a log line that
never fails): most wrong answers pass it. The app fixes that for new tasks by recording
what the golden goal function does and replaying it; this does the same for a task that
exists. Per implementation: its own test runs with the golden goal file in the task's
image and every call it makes to the goal is recorded twice
(`lmr_author.authoring.strengthen_record`); the deterministic ones become a replay test,
``unit_test/replay_test_<k>.py``, beside the published test, which stays as it is. The
replay test is named in info.json (``extra_unit_tests``, outside the
``unit_test/unit_test_*.py`` glob the published loop runs), so `eval` runs it too and a
candidate must pass both.

The task is changed in a scratch copy beside it: the replay tests written, the proof run
on it (golden passes, masked fails, per implementation), the mutation score measured
before and after and stored with the task (`lmr_author.mutation.stored`), and only then
swapped into place. An implementation that cannot be strengthened (what cannot be
recorded, a proof that fails) keeps its files as they were, and is named with why.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import shutil
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from lmr_author.authoring.strengthen_record import (
    MAX_FIXTURE_BYTES,
    ReplayPlan,
    fixtures_folder,
    plan_replay,
    replay_test_file,
    write_replay,
)
from lmr_author.domain.task import (
    EXTRA_TESTS_KEY,
    INFO_FILE,
    Implementation,
    Task,
    load_task,
)
from lmr_author.domain.test_strength import MUTATION_SCORE_KEY, Strength, content_hash
from lmr_author.mutation.score import MutationReport
from lmr_author.runtime.infra_error import InfraError
from lmr_author.sandbox.limits import Limits
from lmr_author.util.atomic import atomic_write_json
from lmr_author.util.errors import UserError
from lmr_author.util.json_input import load_json

if TYPE_CHECKING:
    import docker


@dataclass
class Strengthened:
    """What became of one implementation."""

    task: str
    impl_index: int
    qualname: str
    #: The score before: stored and current (no run), or measured now.
    before: MutationReport | Strength | None = None
    after: MutationReport | None = None
    plan: ReplayPlan | None = None
    #: Why it was not strengthened ("" when it was); its files are as they were.
    error: str = ""

    @property
    def done(self) -> bool:
        return self.plan is not None and not self.error


@dataclass
class TaskStrengthened:
    """What became of one task: its implementations, and whether it was written."""

    task: str
    path: Path
    implementations: list[Strengthened] = field(default_factory=list)
    written: bool = False
    #: Why nothing could be done for the whole task ("" otherwise).
    error: str = ""


def strengthen_task(
    task_dir: Path,
    *,
    base_image: str | None = None,
    impl_index: int | None = None,
    driver: str | None = None,
    limit: int | None = None,
    max_bytes: int = MAX_FIXTURE_BYTES,
    limits: Limits | None = None,
    record_timeout_s: float = 600.0,
    mutants: bool = True,
    measure_only: bool = False,
    on_progress: Callable[[str], None] | None = None,
    client: docker.DockerClient | None = None,
) -> TaskStrengthened:
    """Strengthen the implementations of the task at ``task_dir`` (or only ``impl_index``).

    ``driver`` (Python code) adds calls to those of the tests (only with one
    implementation); ``limits`` are the test runs' (the proof and the mutants);
    ``mutants`` measures the mutation score before and after (and stores it);
    ``measure_only`` records nothing: it proves the tests as they are, measures their
    score and stores it (the task's files are not changed, info.json's scores are).
    """
    from lmr_author.authoring import fixtures
    from lmr_author.images.task_images import ensure_image
    from lmr_author.runtime.engine import get_client

    def say(line: str) -> None:
        if on_progress is not None:
            on_progress(line)

    task = load_task(task_dir)
    chosen = [impl for impl in task.implementations if impl_index in (None, impl.index)]
    if impl_index is not None and not chosen:
        task.implementation(impl_index)  # raises, naming the indexes there are
    if driver is not None and len(chosen) != 1:
        raise UserError(
            f"a driver adds calls to one implementation; {task.name} has {len(chosen)}",
            hint="Say which with --impl N.",
        )
    outcome = TaskStrengthened(task.name, task.path)
    outcome.implementations = [
        Strengthened(task.name, impl.index, impl.qualified_name) for impl in chosen
    ]
    by_index = {item.impl_index: item for item in outcome.implementations}
    limits = limits or Limits()
    try:
        client = client or get_client()
        say(f"{task.name}: building the task's image")
        image = ensure_image(task, client=client, base_image=base_image, on_log=None)
    except InfraError as error:
        outcome.error = error.render()
        return outcome
    if measure_only:
        _measure(task, chosen, by_index, base_image, limits, client, say)
        return outcome
    if mutants:
        _before(task, chosen, by_index, base_image, limits, client, say)
    with _scratch_copy(task) as scratch:
        for impl in chosen:
            item = by_index[impl.index]
            say(f"{task.name} #{impl.index}: recording the calls of its tests to {item.qualname}")
            try:
                item.plan = plan_replay(
                    task,
                    impl,
                    image,
                    driver=driver,
                    limit=limit or fixtures.MAX_FIXTURES,
                    max_bytes=max_bytes,
                    timeout_s=record_timeout_s,
                    on_log=None,
                )
            except UserError as error:
                item.error = error.render()
                continue
            _clear_replay(scratch, impl)
            write_replay(load_task(scratch), _impl(scratch, impl.index), item.plan)
            _name_extra_test(scratch, impl.index, item.plan.test_file)
        planned = [impl for impl in chosen if by_index[impl.index].plan is not None]
        if not planned:
            return outcome
        while planned:
            # Each proof is kept for eval and the mutants under the image of this very
            # content: when one fails and is put back, the others are proven again.
            scratch_task = load_task(scratch)
            failed = []
            for impl in planned:
                say(f"{task.name} #{impl.index}: proving the tests (golden passes, masked fails)")
                problem = _prove(scratch_task, impl.index, base_image, limits, client, say)
                if problem:
                    by_index[impl.index].error = problem
                    failed.append(impl)
            for impl in failed:
                _restore(task, scratch, impl)
            if not failed:
                break
            planned = [impl for impl in planned if impl not in failed]
        if not planned:
            return outcome
        scratch_task = load_task(scratch)
        if mutants:
            say(f"{task.name}: mutation test of the strengthened task")
            reports = _mutation_test(scratch_task, None, base_image, limits, client, say)
            for report in reports:
                if report.impl_index in by_index:
                    by_index[report.impl_index].after = report
            from lmr_author.mutation.stored import store_scores

            store_scores(scratch, reports, base_image=base_image)
        _swap_into_place(scratch, task.path)
        outcome.written = True
    return outcome


def _before(
    task: Task,
    chosen: list[Implementation],
    by_index: dict[int, Strengthened],
    base_image: str | None,
    limits: Limits,
    client: docker.DockerClient,
    say: Callable[[str], None],
) -> None:
    """Each chosen implementation's score as it is: stored (when current) or measured."""
    from lmr_author.mutation.stored import current_strength

    content = content_hash(task.path)
    for impl in chosen:
        stored = current_strength(task, impl, content=content)
        if stored is not None:
            by_index[impl.index].before = stored
            continue
        say(f"{task.name} #{impl.index}: mutation test of the tests as they are")
        found = _mutation_test(task, impl.index, base_image, limits, client, say)
        by_index[impl.index].before = found[0] if found else None


def _measure(
    task: Task,
    chosen: list[Implementation],
    by_index: dict[int, Strengthened],
    base_image: str | None,
    limits: Limits,
    client: docker.DockerClient,
    say: Callable[[str], None],
) -> None:
    """Prove each chosen implementation's tests as they are, measure and store its score."""
    from lmr_author.mutation.stored import store_scores

    reports = []
    for impl in chosen:
        item = by_index[impl.index]
        say(f"{task.name} #{impl.index}: proving the tests (golden passes, masked fails)")
        problem = _prove(task, impl.index, base_image, limits, client, say)
        if problem:
            item.error = problem
            continue
        say(f"{task.name} #{impl.index}: mutation test")
        found = _mutation_test(task, impl.index, base_image, limits, client, say)
        item.after = found[0] if found else None
        reports += found
    store_scores(task.path, reports, base_image=base_image)


def _mutation_test(
    task: Task,
    impl_index: int | None,
    base_image: str | None,
    limits: Limits,
    client: docker.DockerClient,
    say: Callable[[str], None],
) -> list[MutationReport]:
    from lmr_author.mutation.score import mutation_test

    return mutation_test(
        task,
        impl_index,
        base_image=base_image,
        limits=limits,
        on_progress=lambda line: say("  " + line),
        client=client,
    )


def _prove(
    task: Task,
    impl_index: int,
    base_image: str | None,
    limits: Limits,
    client: docker.DockerClient,
    say: Callable[[str], None],
) -> str:
    """Why the strengthened implementation's proof fails ("" when golden passes, masked
    fails and the two golden runs agree). The proof is kept for eval and the mutants."""
    from lmr_author.validate.dynamic import run_dynamic_checks

    alone = dataclasses.replace(task, implementations=[task.implementation(impl_index)])
    findings = run_dynamic_checks(
        alone,
        base_image=base_image,
        timeout_s=limits.timeout_s,
        client=client,
        gpus=limits.gpus,
        hf_cache=limits.hf_cache,
        on_progress=lambda line: say("  " + line),
    )
    errors = [f for f in findings if f.severity == "error"]
    return "; ".join(f"{f.rule}: {f.message}" for f in errors)


def _impl(task_dir: Path, index: int) -> Implementation:
    return load_task(task_dir).implementation(index)


def _replay_paths(task_dir: Path, impl: Implementation) -> list[Path]:
    """The files and folders of ``impl``'s replay test in the task at ``task_dir``."""
    from lmr_author.authoring.fixtures import expected_outputs_dir

    test_file = replay_test_file(impl)
    test_path = task_dir / impl.repo_dir.name / test_file
    return [
        test_path,
        test_path.parent / fixtures_folder(impl),
        expected_outputs_dir(task_dir, test_file),
    ]


def _clear_replay(task_dir: Path, impl: Implementation) -> None:
    """Remove a replay test ``strengthen`` wrote before (it is recorded again)."""
    for path in _replay_paths(task_dir, impl):
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        elif path.exists() or path.is_symlink():
            path.unlink()


def _restore(original: Task, task_dir: Path, impl: Implementation) -> None:
    """Put ``impl``'s replay test and info.json entry back as the original task has them."""
    _clear_replay(task_dir, impl)
    for path in _replay_paths(original.path, impl):
        target = task_dir / path.relative_to(original.path)
        if path.is_dir() and not path.is_symlink():
            shutil.copytree(path, target, symlinks=True)
        elif path.exists():
            shutil.copy2(path, target, follow_symlinks=False)
    original_entry = impl.to_info()

    def put_back(entry: dict[str, object]) -> None:
        for key in (EXTRA_TESTS_KEY, MUTATION_SCORE_KEY):
            if key in original_entry:
                entry[key] = original_entry[key]
            else:
                entry.pop(key, None)

    _edit_entry(task_dir, impl.index, put_back)


def _name_extra_test(task_dir: Path, impl_index: int, test_file: str) -> None:
    """info.json's entry names the replay test among the tests eval runs."""

    def add(entry: dict[str, object]) -> None:
        known = entry.get(EXTRA_TESTS_KEY)
        tests = [t for t in known if isinstance(t, str)] if isinstance(known, list) else []
        entry[EXTRA_TESTS_KEY] = [*dict.fromkeys([*tests, test_file])]

    _edit_entry(task_dir, impl_index, add)


def _edit_entry(
    task_dir: Path, impl_index: int, change: Callable[[dict[str, object]], object]
) -> None:
    info = task_dir / INFO_FILE
    data = load_json(info, what="info.json")
    entries = data.get("implementations") if isinstance(data, dict) else None
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, dict) and entry.get("index") == impl_index:
            change(entry)
            atomic_write_json(info, data)
            return
    raise UserError(f"info.json has no implementation with index {impl_index}", file=info)


@contextlib.contextmanager
def _scratch_copy(task: Task) -> Iterator[Path]:
    """A copy of the task folder with the same name, in a hidden folder beside it (same
    file system: the swap is a rename; same name: the same image tag); removed after."""
    holder = Path(tempfile.mkdtemp(prefix=f".{task.name}.strengthen-", dir=task.path.parent))
    try:
        copy = holder / task.name
        shutil.copytree(
            task.path,
            copy,
            symlinks=True,
            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"),
        )
        yield copy
    finally:
        shutil.rmtree(holder, ignore_errors=True)


def _swap_into_place(scratch: Path, target: Path) -> None:
    """``scratch`` becomes ``target``: two renames, the old folder kept until the second
    is done (a failure in between leaves the old folder at ``.<name>.replaced``)."""
    backup = scratch.parent / f".{target.name}.replaced"
    target.rename(backup)
    try:
        scratch.rename(target)
    except OSError:
        backup.rename(target)
        raise
    shutil.rmtree(backup, ignore_errors=True)


def survivors_of(item: Strengthened) -> list[str]:
    """``key operator: description`` of the mutants the strengthened tests still accept."""
    if item.after is None:
        return []
    return [f"{m.key} {m.operator}: {m.description}" for m in item.after.survivors]


def plan_summary(plan: ReplayPlan) -> str:
    """One line: what was recorded, from how many calls, into which test."""
    return (
        f"{len(plan.calls)} call(s) recorded of the {plan.made} made, replayed by {plan.test_file}"
    )


def to_json(outcome: TaskStrengthened) -> dict[str, object]:
    """``--json``'s form of a task's outcome."""

    def score(value: MutationReport | Strength | None) -> dict[str, object] | None:
        if value is None:
            return None
        if isinstance(value, Strength):
            return {
                "score": round(value.score, 4),
                "killed": value.stored.killed,
                "counted": value.counted,
                "survivors": list(value.survivors),
                "stored": True,
            }
        return {
            "score": round(value.score, 4),
            "killed": value.killed,
            "counted": value.scored,
            "survivors": [m.key for m in value.survivors],
            "stored": False,
        }

    return {
        "task": outcome.task,
        "written": outcome.written,
        "error": outcome.error,
        "implementations": [
            {
                "implementation": item.impl_index,
                "goal": item.qualname,
                "strengthened": item.done,
                "error": item.error,
                "replay_test": item.plan.test_file if item.plan else None,
                "fixtures": len(item.plan.calls) if item.plan else 0,
                "calls": item.plan.made if item.plan else 0,
                "notes": list(item.plan.notes) if item.plan else [],
                "before": score(item.before),
                "after": score(item.after),
            }
            for item in outcome.implementations
        ],
    }


def dumps(outcomes: list[TaskStrengthened]) -> str:
    return json.dumps({"tasks": [to_json(o) for o in outcomes]}, indent=2, ensure_ascii=False)
