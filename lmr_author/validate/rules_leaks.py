"""Rules about what the solver can read: no copy of the answer, and the paper it is promised.

``answer-leak`` compares every golden goal function with every function the solver can
read in the repository folder (`lmr_author.leaks`): Python files, build and backup
copies, notebooks, compiled bytecode of any Python 3, a ``.git`` folder's objects, code
blocks of Markdown and LaTeX files, and the paper's text. ``--fix`` deletes bytecode,
build and backup copies and masks a copy in a Python file like the goal
(`lmr_author.validate.fixes`). ``paper-pdf-missing`` holds the task to the published
agent prompt's promise of a paper.pdf.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from lmr_author.domain.task import PAPER_JSON, PAPER_PDF, Task
from lmr_author.leaks.copies import Copy
from lmr_author.validate.context import TaskContext
from lmr_author.validate.findings import Finding
from lmr_author.validate.rules import RULES, rule, run_rule

if TYPE_CHECKING:
    import docker

    from lmr_author.images.task_images import ImageRef

RULE_LEAK = "answer-leak"
RULE_PAPER_PDF = "paper-pdf-missing"
RULE_INSTALLED = run_rule(
    "answer-leak-installed",
    "error",
    "a package installed in the task's image holds a copy of a goal function (--run)",
)

#: The published agent prompt (LMR-Bench's OpenHands run_infer.py), what it promises.
PROMISE = "You are given a research paper named paper.pdf"


@rule(RULE_LEAK, "error", "the solver can read a copy of a goal function (code, bytecode, ...)")
def check_answer_leak(ctx: TaskContext) -> Iterator[Finding]:
    if ctx.task is None or not _is_dir(ctx.task.repo_dir):
        return
    from lmr_author.leaks.task_copies import task_copies

    goal_files = {impl.goal_file for impl in ctx.task.implementations}
    for copy in task_copies(ctx.task):
        yield leak_finding(ctx, copy, goal_files)


def leak_finding(ctx: TaskContext, copy: Copy, goal_files: set[str]) -> Finding:
    """The finding of one copy: what it is, where, how alike, and what to do."""
    what = f"'{copy.function}'" if copy.function else "code"
    detail = f"; {copy.detail}" if copy.detail else ""
    return ctx.finding(
        RULE_LEAK,
        f"implementation {copy.implementation}: the {copy.kind_name} {what} is a copy of "
        f"the goal function '{copy.goal}' ({copy.describe()}{detail}); a solver can read it",
        file=copy.file,
        where=copy.where,
        hint=leak_hint(copy, ctx.task, goal_files),
        severity="error" if copy.level == "error" else "warning",
    )


def leak_hint(copy: Copy, task: Task | None, goal_files: set[str]) -> str:
    """What to do about a copy (and whether ``--fix`` does it)."""
    if copy.fix == "delete":
        return (
            "Delete it: the solver does not need it. 'lmr-author validate --fix' deletes it "
            "(no other file is touched)."
        )
    in_goal_file = (
        task is not None and copy.file.removeprefix(task.repo_folder_name + "/") in goal_files
    )
    if copy.kind == "source" and in_goal_file:
        return (
            "It is in a goal file: mask it in the goal file and the golden file alike, or "
            "make it call the goal function instead of repeating it."
        )
    if copy.fix == "mask" and copy.level == "error":
        return (
            "Mask it like the goal (or remove it); 'lmr-author validate --fix' masks it, "
            "leaving every other line of the file as it is."
        )
    if copy.fix == "mask":
        return (
            "Mask or remove it if the task does not need it (other code may call it, so "
            "--fix leaves it), or accept it if the solver may adapt it."
        )
    return {
        "notebook": "Remove the cell or mask its function in the notebook (no --fix: a "
        "notebook's outputs may show the answer too).",
        "git": "Ship the repository without its .git folder (or rewrite its history): every "
        "version of every file in it is readable.",
        "paper": "The paper spells out the code: if the task is meant to be done from it, "
        "accept this; otherwise give the solver a paper without the listing.",
        "document": "Remove the code block, or mask the code in it.",
        "installed": "Install the package without that module, or pin a version without it.",
    }.get(copy.kind, "Mask or remove it.")


def installed_findings(task: Task, image: ImageRef, client: docker.DockerClient) -> list[Finding]:
    """``validate --run``: the goal among the packages installed in the task's image.

    One container run of our scan (`lmr_author.leaks.installed`); when it cannot be made,
    one warning says so (the engine's failure, not a finding about the task).
    """
    from lmr_author.leaks.installed import installed_copies
    from lmr_author.leaks.task_copies import task_goals
    from lmr_author.runtime.infra_error import InfraError

    severity = RULES[RULE_INSTALLED].severity
    try:
        copies = installed_copies(task_goals(task), image, client, task_name=task.name)
    except InfraError as error:
        return [
            Finding(
                RULE_INSTALLED,
                "warning",
                "the image's installed packages could not be looked into (this is not a "
                f"finding about the task): {error.message}",
                hint="Check that the image runs, then 'lmr-author validate --run' again.",
            )
        ]
    return [
        Finding(
            RULE_INSTALLED,
            "error" if copy.level == "error" and severity == "error" else "warning",
            f"implementation {copy.implementation}: '{copy.function}' in the image's "
            f"{copy.detail} is a copy of the goal function '{copy.goal}' "
            f"({copy.describe()}); a solver working in the image can read it",
            file=copy.file,
            where=copy.where,
            hint=leak_hint(copy, task, set()),
        )
        for copy in copies
    ]


@rule(
    RULE_PAPER_PDF,
    "warning",
    "the repository has paper.json but no paper.pdf, which the published agent prompt promises",
)
def check_paper_pdf(ctx: TaskContext) -> Iterator[Finding]:
    if ctx.task is None:
        return
    repo = ctx.task.repo_dir
    if _is_file(repo / PAPER_JSON) and not _is_file(repo / PAPER_PDF):
        folder = ctx.task.repo_folder_name
        yield ctx.finding(
            RULE_PAPER_PDF,
            f"the repository has {PAPER_JSON} but no {PAPER_PDF}, and the published agent "
            f'prompt tells the agent "{PROMISE}"',
            file=f"{folder}/{PAPER_PDF}",
            hint="Add the paper as paper.pdf ('lmr-author paper TASK_FOLDER PAPER'); "
            "'lmr-author prepare' writes one from paper.json's text when it is missing.",
        )


def _is_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except OSError:
        return False


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except OSError:
        return False
