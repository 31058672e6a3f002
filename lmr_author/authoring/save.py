"""Saving a draft: check it (statically and in Docker), then write it, never unverified by accident.

Saving used to write whatever the draft held. Now `save_draft_task` builds the task in a
scratch folder (fixtures recorded in the task's image), runs the validator's static
rules and the Docker proof (golden passes, masked fails: `validate.dynamic`), and only
then moves the folder into the benchmark. The proof is remembered per content key (a
hash of the draft's task content, the repository's files and the paper), so saving
right after "Verify in Docker" does not run it again. The mutation test runs on that
kept build (`run_mutation_checks`), proving it first when there is none, so a passing
mutation run counts as a verification too, and its scores are stored in the build Save
writes. An unverified task is written only when the caller says so
(`allow_unverified`); otherwise `UnverifiedTask` says why.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from lmr_author.authoring.build import build_task, refuse_existing, replaced_tests
from lmr_author.authoring.drafts import mark_finished
from lmr_author.authoring.paper_forms import LoadedPaper
from lmr_author.authoring.spec import TaskSpec
from lmr_author.domain.task import Task, load_task
from lmr_author.util.atomic import atomic_write_json
from lmr_author.util.errors import UserError
from lmr_author.util.locations import cache_dir, private_dir

if TYPE_CHECKING:
    from lmr_author.authoring.strengthen import TaskStrengthened
    from lmr_author.mutation.score import MutationReport

#: Draft fields that are about the session, not the task's content.
_NOT_CONTENT = frozenset({"step", "finished", "benchmark_dir"})
_IGNORED_PARTS = frozenset({".git", "__pycache__", ".mypy_cache", ".pytest_cache"})


@dataclass
class SaveCheck:
    """The checks of one exact draft content."""

    key: str
    static_errors: list[str] = field(default_factory=list)
    dynamic_errors: list[str] = field(default_factory=list)
    verified: bool = False
    seconds: float = 0.0
    #: The warnings, one line per rule (count and first places): they never block.
    static_warnings: list[str] = field(default_factory=list)

    @property
    def reasons(self) -> list[str]:
        return [*self.static_errors, *self.dynamic_errors]


class UnverifiedTask(UserError):
    """The draft did not pass its checks and the caller did not confirm writing it."""

    def __init__(self, check: SaveCheck) -> None:
        reasons = "; ".join(check.reasons) or "it was not verified"
        super().__init__(
            f"the task was not saved: {reasons}",
            hint="Fix the task and save again, or confirm saving it unverified "
            "(--allow-unverified).",
        )
        self.check = check


def content_key(spec: TaskSpec) -> str:
    """A hash of everything that decides the task's content (not the session state)."""
    digest = hashlib.sha256()
    draft = {k: v for k, v in spec.to_json().items() if k not in _NOT_CONTENT}
    # Marking a survivor equivalent changes info.json, not what was verified: the save
    # writes the marks into the verified build (`_write_equivalents`).
    draft["goals"] = [
        {k: v for k, v in goal.items() if k != "equivalent_mutants"} for goal in draft["goals"]
    ]
    digest.update(json.dumps(draft, sort_keys=True).encode())
    repo = Path(spec.repo_path or spec.source)
    if repo.is_dir():
        for path in sorted(repo.rglob("*")):
            if path.is_file() and not _IGNORED_PARTS & set(path.relative_to(repo).parts):
                digest.update(path.relative_to(repo).as_posix().encode() + b"\0")
                digest.update(hashlib.sha256(path.read_bytes()).digest())
    paper = Path(spec.paper_pdf).expanduser() if spec.paper_pdf else None
    if paper is not None and paper.is_file():
        digest.update(hashlib.sha256(paper.read_bytes()).digest())
    elif paper is not None and paper.is_dir():  # a LaTeX source folder
        for path in sorted(paper.rglob("*")):
            if path.is_file():
                digest.update(path.relative_to(paper).as_posix().encode() + b"\0")
                digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def _check_file(key: str) -> Path:
    return private_dir(cache_dir("save-checks")) / f"{key[:32]}.json"


def last_check(spec: TaskSpec) -> SaveCheck | None:
    """The remembered checks of this exact content, if any."""
    path = _check_file(content_key(spec))
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return SaveCheck(**data)
    except (OSError, ValueError, TypeError):
        return None


def check_inputs(spec: TaskSpec) -> LoadedPaper | None:
    """Everything that can be checked before a Docker step, each error naming the file.

    The folder name and goals, the repository and each goal file and function (a local
    repository; a URL is checked out by the build), and the paper (read whole, in
    whichever form it is given). Returns the paper, or None when it is left for later.
    """
    from lmr_author.authoring.paper_forms import read_paper
    from lmr_author.cst.mask import mask_function

    if not spec.folder_name:
        raise UserError(
            "the draft has no task folder name", hint="Set folder_name, e.g. 07-MyTask."
        )
    if not spec.goals:
        raise UserError("the draft has no goal function", hint="Pick at least one goal function.")
    repo = Path(spec.repo_path or spec.source).expanduser()
    if repo.is_dir():
        for position, goal in enumerate(spec.goals):
            goal_path = repo / goal.goal_file
            if not goal_path.is_file():
                raise UserError(
                    "no such goal file in the repository",
                    file=goal_path,
                    where=f"$.goals[{position}].goal_file",
                    hint="Give the goal file's path relative to the repository root.",
                )
            mask_function(
                goal_path.read_bytes(),
                goal.goal_function,
                goal.class_name,
                style=goal.mask_style,
                line=goal.line,
            )  # raises, naming the function, when it is not there
        for position, name in enumerate(spec.guarded_files):
            if not (repo / name).is_file():
                raise UserError(
                    "no such file to guard in the repository",
                    file=repo / name,
                    where=f"$.guarded_files[{position}]",
                    hint="Name a Python file of the repository, relative to its root.",
                )
    elif not _looks_like_url(spec.source):
        raise UserError(
            "no such repository folder",
            file=spec.repo_path or spec.source,
            hint="Give the repository's folder or a git URL as 'source'.",
        )
    return read_paper(spec.paper_pdf) if spec.paper_pdf else None


def _looks_like_url(source: str) -> bool:
    return "://" in source or source.startswith("git@")


def fill_identity(spec: TaskSpec, paper: LoadedPaper | None = None) -> list[str]:
    """Set ``year`` and ``instance_id`` when unset; return what was set (never null)."""
    filled = []
    if not spec.paper_name and paper is not None and paper.title:
        spec.paper_name = paper.title
        filled.append(f"paper_name {paper.title!r} (from the paper)")
    if spec.instance_id is None:
        match = re.match(r"(\d+)", spec.folder_name)
        if match is None:
            raise UserError(
                "the task has no instance_id and its folder name does not start with one",
                hint="Set instance_id, or name the folder like 07-MyTask.",
            )
        spec.instance_id = int(match.group(1))
        filled.append(f"instance_id {spec.instance_id} (from the folder name)")
    if spec.year is None:
        from lmr_author.authoring.paper_forms import paper_year

        # Cheap (metadata only): the live check runs this as fields are typed.
        year = paper.year if paper is not None else None
        if year is None and spec.paper_pdf:
            year = paper_year(spec.paper_pdf)
        if year is None:
            raise UserError(
                "the task has no year and its paper does not say one",
                hint="Set year (the paper's publication year).",
            )
        spec.year = year
        filled.append(f"year {year} (from the paper)")
    return filled


def _check_built(
    task: Task,
    key: str,
    *,
    base_image: str | None,
    on_step: Callable[[str], None] | None,
    on_log: Callable[[str], None] | None,
) -> SaveCheck:
    from lmr_author.validate.dynamic import run_dynamic_checks
    from lmr_author.validate.report import group_findings
    from lmr_author.validate.task_dir import validate_task_dir

    started = time.monotonic()
    check = SaveCheck(key=key)
    if on_step:
        on_step("running the static checks")
    # One line per rule, with the count and the first files: never 86 lines of the same.
    for group in group_findings(validate_task_dir(task.path)):
        if group.severity == "error":
            check.static_errors.append(group.describe())
        else:
            check.static_warnings.append(group.describe())
            if on_step:
                on_step(f"warning {group.describe()}")
    if not check.static_errors:
        if on_step:
            on_step("proving the tests in Docker (golden passes, masked fails)")
        found = run_dynamic_checks(task, base_image=base_image, on_progress=on_step, on_log=on_log)
        for group in group_findings(found):
            if group.severity == "error":
                check.dynamic_errors.append(group.describe())
    check.verified = not check.static_errors and not check.dynamic_errors
    check.seconds = time.monotonic() - started
    atomic_write_json(_check_file(key), asdict(check))
    return check


def _verified_build(key: str) -> Path:
    """Where the task folder a verification built is kept, for the save to write as is."""
    return private_dir(cache_dir("verified-tasks")) / key[:32]


def _keep_verified(task: Task, key: str) -> None:
    """Keep the verified task folder (one per content: the newest replaces none other)."""
    kept = _verified_build(key)
    shutil.rmtree(kept, ignore_errors=True)
    kept.mkdir(parents=True)
    shutil.copytree(task.path, kept / task.path.name, symlinks=True)
    _forget_old_builds(keep=kept)


def _forget_old_builds(*, keep: Path, days: float = 7.0) -> None:
    """Verified builds nobody saved within ``days`` are dropped (they can be remade)."""
    now = time.time()
    for folder in keep.parent.iterdir():
        try:
            old = now - folder.stat().st_mtime > days * 86400
        except OSError:
            continue
        if folder != keep and old:
            shutil.rmtree(folder, ignore_errors=True)


def _remember_task_image(spec: TaskSpec, task: Task, base_image: str | None) -> None:
    """The task image this check proved replaces the draft's older ones."""
    from lmr_author.authoring import draft_images
    from lmr_author.sandbox.housekeeping import current_tags

    with contextlib.suppress(UserError):
        (tag,) = current_tags([task], base_image=base_image)
        draft_images.built(spec, "task", tag)


def run_save_checks(
    spec: TaskSpec,
    *,
    base_image: str | None = None,
    on_step: Callable[[str], None] | None = None,
    on_log: Callable[[str], None] | None = None,
) -> SaveCheck:
    """Build the draft in a scratch folder, run the static checks and the Docker proof.

    A verified build is kept (per content key), so that saving the same content
    writes exactly what was verified, without building and recording again.
    ``base_image`` replaces the Dockerfile's FROM; None: the draft's own choice, if any.
    """
    base_image = base_image or spec.base_image or None
    key = content_key(spec)
    with tempfile.TemporaryDirectory(prefix="lmr-author-save-") as scratch:
        task = build_task(
            spec,
            Path(scratch),
            in_docker=True,
            on_step=on_step,
            on_log=on_log,
            base_image=base_image,
        )
        check = _check_built(task, key, base_image=base_image, on_step=on_step, on_log=on_log)
        if check.verified:
            _keep_verified(task, key)
        _remember_task_image(spec, task, base_image)
        return check


def run_mutation_checks(
    spec: TaskSpec,
    *,
    base_image: str | None = None,
    on_step: Callable[[str], None] | None = None,
    on_log: Callable[[str], None] | None = None,
) -> tuple[SaveCheck, list[MutationReport]]:
    """The draft's mutation test, run on the build Save will write, as a verification.

    The verified build of this exact content is reused (none is made again); without
    one, the draft is built and proven first (`run_save_checks`), so a passing mutation
    run is a verification: Save then writes that build without proving it again. The
    scores are stored in the kept build's info.json (`lmr_author.mutation.stored`), so
    the saved task carries them. No mutants run when the proof fails.
    """
    from lmr_author.mutation.score import mutation_test
    from lmr_author.mutation.stored import store_scores

    base_image = base_image or spec.base_image or None
    key = content_key(spec)
    check = last_check(spec)
    kept = _verified_build(key) / spec.folder_name
    if check is None or not check.verified or not kept.is_dir():
        check = run_save_checks(spec, base_image=base_image, on_step=on_step, on_log=on_log)
        if not check.verified or not kept.is_dir():
            return check, []
    elif on_step:
        on_step("reusing the verified build of this exact content")
    task = load_task(kept)
    reports = mutation_test(task, base_image=base_image, on_progress=on_step)
    store_scores(kept, reports, base_image=base_image)
    return check, reports


def strengthen_verified(
    spec: TaskSpec,
    *,
    base_image: str | None = None,
    on_step: Callable[[str], None] | None = None,
) -> TaskStrengthened:
    """`lmr-author strengthen` on the verified build Save will write: a replay test
    recorded from what the golden code does under the repository's own tests, proven,
    scored and stored there. Needs a verified build of this exact content."""
    from lmr_author.authoring.strengthen import strengthen_task

    base_image = base_image or spec.base_image or None
    check = last_check(spec)
    kept = _verified_build(content_key(spec)) / spec.folder_name
    if check is None or not check.verified or not kept.is_dir():
        raise UserError(
            "the draft has no verified build to strengthen",
            hint="Verify first (or run the mutation test, which verifies).",
        )
    return strengthen_task(kept, base_image=base_image, on_progress=on_step)


def save_draft_task(
    spec: TaskSpec,
    benchmark_dir: Path,
    *,
    allow_unverified: bool = False,
    overwrite: bool = False,
    base_image: str | None = None,
    on_step: Callable[[str], None] | None = None,
    on_log: Callable[[str], None] | None = None,
    draft_file: Path | None = None,
) -> Task:
    """Check and write the draft as ``benchmark_dir/<folder_name>``; mark the draft finished.

    Every input is checked (`check_inputs`) before the first Docker step.
    ``base_image`` replaces the Dockerfile's FROM; None: the draft's own choice, if any.
    """
    base_image = base_image or spec.base_image or None
    paper = check_inputs(spec)
    if on_step:
        on_step(
            f"paper: {paper.form}, {len(paper.pages)} page(s): {paper.title}"
            if paper is not None
            else "paper: none given; the task is saved without one and 'validate' says so "
            "until 'lmr-author paper TASK PAPER' adds it"
        )
    fill_identity(spec, paper)
    spec.benchmark_dir = str(benchmark_dir)
    target = benchmark_dir / spec.folder_name
    refuse_existing(target, overwrite=overwrite)
    key = content_key(spec)
    with tempfile.TemporaryDirectory(prefix="lmr-author-save-") as scratch:
        check = last_check(spec)
        kept = _verified_build(key) / spec.folder_name
        if check is not None and check.verified and kept.is_dir():
            if on_step:
                on_step(
                    "reusing the checks of this exact content (verified): writing the task "
                    "that was verified, without building or recording again"
                )
                # Said by the build when there is one; here there is none.
                for notice in replaced_tests(spec):
                    on_step(notice)
            task = load_task(kept)
        else:
            task = build_task(
                spec,
                Path(scratch),
                in_docker=True,
                on_step=on_step,
                on_log=on_log,
                base_image=base_image,
            )
            if check is None or not check.verified:
                check = _check_built(
                    task, key, base_image=base_image, on_step=on_step, on_log=on_log
                )
            elif on_step:
                on_step("reusing the checks of this exact content (verified)")
        if not check.verified and not allow_unverified:
            raise UnverifiedTask(check)
        if on_step:
            on_step("writing the task")
        benchmark_dir.mkdir(parents=True, exist_ok=True)
        # Copied next to its place, then renamed: a failure never leaves half a task.
        incoming = target.with_name(f".{target.name}.incoming")
        shutil.rmtree(incoming, ignore_errors=True)
        shutil.copytree(task.path, incoming, symlinks=True)
        _write_equivalents(spec, incoming)
        backup = target.with_name(f".{target.name}.replaced")
        if target.exists():
            shutil.rmtree(backup, ignore_errors=True)
            target.rename(backup)
        incoming.rename(target)
        shutil.rmtree(backup, ignore_errors=True)
    shutil.rmtree(_verified_build(key), ignore_errors=True)
    mark_finished(spec, draft_file)
    saved = load_task(target)
    _prune_after_save(spec, saved, base_image)
    return saved


def _write_equivalents(spec: TaskSpec, task_dir: Path) -> None:
    """The draft's equivalent mutants, as they are now, in the task's info.json."""
    from lmr_author.mutation.equivalents import parse_equivalents, set_equivalents

    for index, goal in enumerate(spec.goals, start=1):
        set_equivalents(task_dir, index, parse_equivalents(goal.equivalent_mutants))


def _prune_after_save(spec: TaskSpec, task: Task, base_image: str | None) -> None:
    """The saved task keeps one image, its current one: the other images this draft
    built (environments, older contents) go."""
    from lmr_author.authoring import draft_images
    from lmr_author.sandbox.housekeeping import current_tags

    keep = None
    with contextlib.suppress(UserError):
        (keep,) = current_tags([task], base_image=base_image)
    draft_images.saved(spec, keep)
