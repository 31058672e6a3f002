"""Tasks of our own in the published shape, with copies of the goal planted in them."""

from __future__ import annotations

import json
import py_compile
import textwrap
from pathlib import Path

from lmr_author.domain.task import load_task
from lmr_author.leaks.copies import Copy
from lmr_author.leaks.task_copies import task_copies
from tests.support.published_task import GOLDEN, MASKED, REPO, write_published_task

FIXTURES = Path(__file__).parent / "fixtures"

#: The golden weighted_mean with every name changed, reformatted, commented, and as a
#: method of a class in another module: the same computation.
RENAMED = textwrap.dedent(
    '''\
    class Scorer:
        def combine(self, xs, ws):
            """Another docstring."""
            # sum the weights first
            denominator = sum(
                ws
            )
            if denominator == 0:
                return 0.0  # nothing to weigh
            return sum(a * b for a, b in zip(xs, ws)) / denominator
    '''
)
#: Same name, different computation: a trimmed median, nothing like the golden body.
SAME_NAME_DIFFERENT = textwrap.dedent(
    '''\
    def weighted_mean(values, weights):
        """Not the goal: the median of the values that carry weight."""
        kept = sorted(v for v, w in zip(values, weights) if w > 0)
        if not kept:
            raise ValueError("no weighted value")
        middle = len(kept) // 2
        if len(kept) % 2:
            return kept[middle]
        return (kept[middle - 1] + kept[middle]) / 2.0
    '''
)


def published_task(root: Path, name: str = "87-Weighted") -> Path:
    """A clean task in the published shape (tests/support/published_task.py)."""
    return write_published_task(root, name)


def repo(task_dir: Path) -> Path:
    return task_dir / REPO


def copies_of(task_dir: Path, **options: object) -> list[Copy]:
    return task_copies(load_task(task_dir), **options)  # type: ignore[arg-type]


def notebook(*cells: str) -> str:
    """A notebook (nbformat 4) with a markdown cell, then ``cells`` as code cells."""
    document = {
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {},
        "cells": [{"cell_type": "markdown", "metadata": {}, "source": ["# Analysis\n"]}]
        + [
            {
                "cell_type": "code",
                "metadata": {},
                "execution_count": None,
                "outputs": [],
                "source": source.splitlines(keepends=True),
            }
            for source in cells
        ],
    }
    return json.dumps(document, indent=1)


def compile_here(source: str, target: Path) -> Path:
    """``source`` compiled by the running interpreter (3.11) into ``target``."""
    scratch = target.parent / "_source.py"
    scratch.parent.mkdir(parents=True, exist_ok=True)
    scratch.write_text(source)
    py_compile.compile(str(scratch), cfile=str(target), doraise=True)
    scratch.unlink()
    return target


__all__ = ["GOLDEN", "MASKED"]
