"""Step 8 of new-task: write the task folder from a draft, atomically.

The folder is assembled in a hidden staging folder next to its final place and renamed
into place at the end, so a failure never leaves a half-written task; an existing task
is replaced only when the caller says so.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

from lmr_author.authoring.dockerfile import task_dockerfile
from lmr_author.authoring.fixtures import CODEC_MODULE, record_fixtures
from lmr_author.authoring.guard import apply_guards, line_after_guard
from lmr_author.authoring.scaffold import render_unit_test
from lmr_author.authoring.source import resolve_source
from lmr_author.authoring.spec import TaskSpec
from lmr_author.authoring.task_layout import task_from_spec, unit_test_file
from lmr_author.domain.task import Task, save_task
from lmr_author.util.errors import UserError

_IGNORED = shutil.ignore_patterns(".git", "__pycache__", "*.pyc", ".mypy_cache", ".pytest_cache")


def refuse_existing(target: Path, *, overwrite: bool) -> None:
    """A task folder is replaced only when the caller confirmed it (``overwrite``)."""
    if target.exists() and not overwrite:
        raise UserError(
            "a task with this name exists already",
            file=target,
            hint="Choose another folder name, or confirm replacing it (--force).",
        )


def build_task(
    spec: TaskSpec,
    benchmark_dir: Path,
    *,
    overwrite: bool = False,
    on_step: Callable[[str], None] | None = None,
    in_docker: bool = False,
    on_log: Callable[[str], None] | None = None,
    base_image: str | None = None,
) -> Task:
    """Create ``benchmark_dir/<spec.folder_name>`` from ``spec``; return the loaded task.

    ``in_docker`` records the fixtures inside the task's image (built first, its log to
    ``on_log``), twice, refusing a nondeterministic golden; without it the recorder runs
    in this Python (the NumPy-only toys of the unit tests).
    """
    from lmr_author.authoring.paper_forms import read_paper, write_paper
    from lmr_author.cst.mask import mask_function

    def step(message: str) -> None:
        if on_step is not None:
            on_step(message)

    if not spec.folder_name:
        raise UserError(
            "the draft has no task folder name", hint="Set folder_name, e.g. 07-MyTask."
        )
    if not spec.goals:
        raise UserError("the draft has no goal function", hint="Pick at least one goal function.")
    target = benchmark_dir / spec.folder_name
    refuse_existing(target, overwrite=overwrite)
    step("checking out the repository")
    if spec.repo_path and Path(spec.repo_path).is_dir():
        checkout = resolve_source(spec.repo_path)  # already checked out at the ref
    else:
        checkout = resolve_source(spec.source, spec.ref)
    repo_folder = spec.repo_folder(checkout.path)
    benchmark_dir.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{spec.folder_name}.", dir=benchmark_dir))
    try:
        repo_dir = staging / repo_folder
        step("copying the repository")
        shutil.copytree(checkout.path, repo_dir, ignore=_IGNORED, symlinks=True)
        apply_guards(spec.guarded_files, repo_dir)  # the task's copy only
        if spec.paper_pdf:
            step("converting the paper")
            write_paper(read_paper(spec.paper_pdf), repo_dir)
        task = task_from_spec(
            spec,
            staging,
            repo_folder=repo_folder,
            repo_url=checkout.url,
            repo_commit=checkout.commit,
        )
        for index, (goal, impl) in enumerate(zip(spec.goals, task.implementations, strict=True)):
            goal_path = repo_dir / goal.goal_file
            if not goal_path.is_file():
                raise UserError("no such goal file in the repository", file=goal.goal_file)
            if not impl.golden_path.exists():
                impl.golden_path.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(goal_path, impl.golden_path)
            if goal.driver and in_docker:
                step(f"recording fixtures of {goal.goal_function} in the task's image")
                step(
                    _record_in_docker(spec, index, staging, impl.unit_test_file, on_log, base_image)
                )
            elif goal.driver:
                step(f"recording fixtures of {goal.goal_function}")
                record_fixtures(
                    repo_dir,
                    goal.goal_file,
                    goal.goal_function,
                    goal.driver,
                    class_name=goal.class_name,
                    unit_test_file=impl.unit_test_file,
                )
            if goal.driver and _foreign_test(impl.unit_test_path):
                # A test the repository already had at this path (an earlier task's, in a
                # published repository folder) would be run instead of the replay test of
                # the fixtures just recorded, reading data the task may not have.
                step(replaced_test_notice(impl.unit_test_file, impl.unit_test_path))
                impl.unit_test_path.unlink()
            if not impl.unit_test_path.exists():
                impl.unit_test_path.parent.mkdir(parents=True, exist_ok=True)
                impl.unit_test_path.write_text(
                    render_unit_test(
                        goal_file=goal.goal_file,
                        goal_function=goal.goal_function,
                        class_name=goal.class_name,
                        unit_test_file=impl.unit_test_file,
                        seed=spec.seed,
                    ),
                    encoding="utf-8",
                )
        step("masking the goal functions")
        for goal in spec.goals:
            goal_path = repo_dir / goal.goal_file
            line = goal.line
            if line is not None and goal.goal_file in spec.guarded_files:
                original = (checkout.path / goal.goal_file).read_text(encoding="utf-8")
                line = line_after_guard(original, line)
            masked = mask_function(
                goal_path.read_bytes(),
                goal.goal_function,
                goal.class_name,
                style=goal.mask_style,
                line=line,
            )
            goal_path.write_bytes(masked)
        _mask_copies(spec, checkout.path, repo_dir, step)
        if spec.requirements.strip():
            (staging / "requirements.txt").write_text(spec.requirements, encoding="utf-8")
        if not (staging / "Dockerfile").exists():
            (staging / "Dockerfile").write_text(
                task_dockerfile(spec, repo_folder), encoding="utf-8"
            )
        save_task(task)
        step("moving the task into place")
        _swap_into_place(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    from lmr_author.domain.task import load_task

    return load_task(target)


def _mask_copies(
    spec: TaskSpec, original: Path, repo_dir: Path, step: Callable[[str], None]
) -> None:
    """Mask the copies of the goals the annotator chose to mask (Mask step), with their
    goal's mask style; a copy that can no longer be masked there is left, and validate's
    answer-leak rule reports it."""
    from lmr_author.leaks.remedy import mask_at

    chosen = [(goal, entry) for goal in spec.goals for entry in goal.masked_copies]
    if not chosen:
        return
    step("masking the copies of the goal functions")
    for goal, entry in chosen:
        file, _, line_text = entry.rpartition(":")
        relative = Path(file)
        if not file or not line_text.isdigit() or relative.is_absolute() or ".." in relative.parts:
            continue
        line = int(line_text)
        if file in spec.guarded_files:
            line = line_after_guard((original / file).read_text(encoding="utf-8"), line)
        mask_at(repo_dir / file, {line}, style=goal.mask_style)


def replaced_test_notice(unit_test_file: str, path: Path) -> str:
    """What the annotator is told when the repository's own test at the task's test path
    gives way to the replay test (in the task's copy only)."""
    try:
        lines = f" ({len(path.read_text(encoding='utf-8', errors='replace').splitlines())} lines)"
    except OSError:
        lines = ""
    return (
        f"the repository's own {unit_test_file}{lines} does not replay the recorded "
        "fixtures: the task's copy gets the replay test in its place (your repository is "
        "not changed)"
    )


def replaced_test(spec: TaskSpec, index: int) -> str | None:
    """The notice for goal ``index`` (from 0) when its test path holds a test of the
    repository's own, which the replay test will take the place of."""
    test_file = unit_test_file(index + 1)
    path = Path(spec.repo_path or spec.source) / test_file
    if spec.goals[index].driver and _foreign_test(path):
        return replaced_test_notice(test_file, path)
    return None


def replaced_tests(spec: TaskSpec) -> list[str]:
    """A notice per goal whose test path holds a test of the repository's own."""
    notices = (replaced_test(spec, index) for index in range(len(spec.goals)))
    return [notice for notice in notices if notice is not None]


def own_tests(spec: TaskSpec) -> list[int]:
    """The goals (from 0) whose tests are the repository's own: no driver is recorded,
    and the goal's test path holds a test of the repository (an imported or
    published-shaped draft). `lmr-author strengthen` can record what the golden code does
    under such a test."""
    root = Path(spec.repo_path or spec.source)
    return [
        index
        for index, goal in enumerate(spec.goals)
        if not goal.driver.strip() and _foreign_test(root / unit_test_file(index + 1))
    ]


def _foreign_test(path: Path) -> bool:
    """Whether ``path`` is a test file that does not replay our fixtures."""
    if not path.is_file():
        return False
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return CODEC_MODULE.removesuffix(".py") not in text


def _record_in_docker(
    spec: TaskSpec,
    index: int,
    task_dir: Path,
    unit_test_file: str,
    on_log: Callable[[str], None] | None,
    base_image: str | None,
) -> str:
    """Record in the task's image; what was recorded, in a line (or refuse)."""
    from lmr_author.authoring.record_docker import NondeterministicGolden, record_goal_in_docker

    result = record_goal_in_docker(
        spec, index, task_dir, unit_test_file=unit_test_file, on_log=on_log, base_image=base_image
    )
    if not result.deterministic:
        raise NondeterministicGolden(
            result.message(), hint='Set "seed": true in the draft, or fix the driver.'
        )
    return result.message()


def _swap_into_place(staging: Path, target: Path) -> None:
    if not target.exists():
        staging.rename(target)
        return
    backup = target.with_name(f".{target.name}.replaced")
    shutil.rmtree(backup, ignore_errors=True)
    target.rename(backup)
    staging.rename(target)
    shutil.rmtree(backup, ignore_errors=True)
