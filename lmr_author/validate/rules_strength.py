"""Rules about how strong a task's tests are, from what is stored with it: the tests eval
runs besides the published one (``extra_unit_tests``, `lmr-author strengthen`'s replay
test) and the stored mutation score (`lmr_author.domain.test_strength`). Nothing runs:
a score measured on other content is said to be stale, never shown as the task's.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterator

from lmr_author.domain.task import EXTRA_TESTS_KEY, Implementation
from lmr_author.domain.test_strength import (
    MUTATION_SCORE_KEY,
    WEAK_SCORE,
    Strength,
    content_hash,
    parse_stored,
    strength_of,
)
from lmr_author.validate.context import TaskContext
from lmr_author.validate.findings import Finding
from lmr_author.validate.rules import rule

#: The files the published loop runs: an extra test must not be one of them.
PUBLISHED_GLOB = "unit_test/unit_test_*.py"


@rule(
    "extra-test-path",
    "error",
    "a test named in extra_unit_tests is missing, leaves the repository or is one the "
    "published loop runs as well",
)
def check_extra_tests(ctx: TaskContext) -> Iterator[Finding]:
    if ctx.task is None:
        return
    for position, impl in enumerate(ctx.task.implementations):
        raw = impl.extra.get(EXTRA_TESTS_KEY)
        if not isinstance(raw, list):
            continue  # absent; a wrong type is the schema's
        for number, name in enumerate(raw):
            if not isinstance(name, str):
                continue
            where = f"$.implementations[{position}].{EXTRA_TESTS_KEY}[{number}]"
            why = ctx.escape_reason(impl.repo_dir, name) if name else "is empty"
            if why is None and not (impl.repo_dir / name).is_file():
                why = "is not a file of the repository folder"
            if why is None and fnmatch.fnmatch(name, PUBLISHED_GLOB):
                why = f"matches {PUBLISHED_GLOB}, which the published loop runs on its own"
            if why is not None:
                yield ctx.finding(
                    "extra-test-path",
                    f"implementation {impl.index}: the extra test '{name}' {why}",
                    file="info.json",
                    where=where,
                    hint="Run 'lmr-author strengthen' again to write the replay test, or "
                    "remove the entry.",
                )


@rule(
    "weak-tests",
    "warning",
    "the stored mutation score says fewer than half of the wrong versions of the goal fail "
    "the tests",
)
def check_weak_tests(ctx: TaskContext) -> Iterator[Finding]:
    for impl, strength in _strengths(ctx):
        if strength.current and strength.weak:
            yield ctx.finding(
                "weak-tests",
                f"implementation {impl.index}: the stored mutation score of "
                f"{impl.qualified_name} is {strength.describe()}, measured on this content: "
                f"fewer than {WEAK_SCORE:.0%} of these wrong answers fail the tests",
                file="info.json",
                where=f"$.implementations[{_position(ctx, impl.index)}].mutation_score",
                hint="Run 'lmr-author strengthen TASK' to add a replay test recorded from the "
                "golden code (--driver FILE adds calls the tests do not make).",
            )


@rule(
    "mutation-score-stale",
    "warning",
    "the stored mutation score was measured on other content of the task",
)
def check_stale_score(ctx: TaskContext) -> Iterator[Finding]:
    for impl, strength in _strengths(ctx):
        if not strength.current:
            when = f" on {strength.stored.measured}" if strength.stored.measured else ""
            yield ctx.finding(
                "mutation-score-stale",
                f"implementation {impl.index}: the stored mutation score ({strength.describe()},"
                f" measured{when}) is not this task's any more: a file changed since",
                file="info.json",
                where=f"$.implementations[{_position(ctx, impl.index)}].mutation_score",
                hint="Measure it again: 'lmr-author strengthen --measure-only TASK' (or "
                "'lmr-author strengthen TASK' to record the tests' calls again).",
            )


def _strengths(ctx: TaskContext) -> Iterator[tuple[Implementation, Strength]]:
    """Each implementation with a stored score, as it reads now (the content hashed once,
    and only when a score is stored)."""
    if ctx.task is None:
        return
    content: str | None = None
    for impl in ctx.task.implementations:
        if parse_stored(impl.extra.get(MUTATION_SCORE_KEY)) is None:
            continue
        content = content or content_hash(ctx.task.path)
        strength = strength_of(ctx.task, impl, content=content)
        if strength is not None:
            yield impl, strength


def _position(ctx: TaskContext, index: int) -> int:
    if ctx.task is None:
        return 0
    for position, impl in enumerate(ctx.task.implementations):
        if impl.index == index:
            return position
    return 0
