"""A small research-style git repository, made by the tests."""

from __future__ import annotations

import textwrap
from pathlib import Path

import git
import pytest

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
    (root / "toy").mkdir(parents=True)
    (root / "toy" / "__init__.py").write_text("")
    (root / "toy" / "losses.py").write_text(LOSSES)
    (root / "toy" / "utils.py").write_text(UTILS)
    repo = git.Repo.init(root, initial_branch="main")
    with repo.config_writer() as config:
        config.set_value("user", "name", "Test")
        config.set_value("user", "email", "test@example.invalid")
    repo.index.add(["toy/__init__.py", "toy/losses.py", "toy/utils.py"])
    repo.index.commit("first")
    repo.create_tag("v1")
    (root / "README.md").write_text("toy\n")
    repo.index.add(["README.md"])
    repo.index.commit("second")
    return root
