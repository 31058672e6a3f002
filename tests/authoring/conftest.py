"""A small research-style git repository, made by the tests."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from tests.support.git_repo import commit_files

LOSSES = textwrap.dedent(
    '''\
    """Losses of the toy method."""
    import math

    from toy.utils import safe_log


    def margin_loss(chosen, rejected, beta=0.1):
        """Logistic loss on the margin between chosen and rejected scores.

        Returns the mean loss over the batch.
        """
        total = 0.0
        for c, r in zip(chosen, rejected):
            total += -safe_log(1.0 / (1.0 + math.exp(-beta * (c - r))))
        return total / len(chosen)


    class Scorer:
        def __init__(self, scale):
            self.scale = scale

        def score(self, values):
            """Scaled sum."""
            return self.scale * sum(values)
    '''
)

UTILS = textwrap.dedent(
    """\
    import math


    def safe_log(x, eps=1e-12):
        return math.log(max(x, eps))
    """
)


@pytest.fixture
def toy_repo(tmp_path: Path) -> Path:
    """A git repository with one commit (tag v1) and a second commit on main."""
    root = tmp_path / "toy-repo"
    files = {"toy/__init__.py": "", "toy/losses.py": LOSSES, "toy/utils.py": UTILS}
    commit_files(root, files, "first").create_tag("v1")
    commit_files(root, {"README.md": "toy\n"}, "second")
    return root
