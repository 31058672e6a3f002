"""A repository and a paper made by the tests, for driving the new-task app."""

from __future__ import annotations

import contextlib
import textwrap
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.worker import WorkerCancelled

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


    def unrelated(x):
        return x + 1
    '''
)

UTILS = "import math\n\n\ndef safe_log(x, eps=1e-12):\n    return math.log(max(x, eps))\n"

DRIVER = (
    "from toy.losses import margin_loss\n"
    "for beta in (0.1, 0.5, 2.0):\n"
    "    margin_loss([1.0, 2.0, 0.5], [0.5, 3.0, 0.5], beta=beta)\n"
)


@pytest.fixture
def toy_repo(tmp_path: Path) -> Path:
    root = tmp_path / "toy-margin"
    files = {"toy/__init__.py": "", "toy/losses.py": LOSSES, "toy/utils.py": UTILS}
    commit_files(root, files, "the toy method")
    return root


@pytest.fixture
def toy_paper(tmp_path: Path) -> Path:
    from lmr_author.authoring.paper_pdf import make_paper_pdf

    out = tmp_path / "paper.pdf"
    make_paper_pdf(
        "Margin Losses for Toy Preferences",
        [
            (
                "Method",
                "We minimise a logistic loss on the score margin.\n\n"
                "$$ L = -log sigmoid(beta (c - r))",
            ),
            ("Experiments", "The margin loss improves toy preference accuracy."),
        ],
        out,
        authors="A. Tester",
    )
    return out


async def settle(pilot: Pilot[int]) -> None:
    """Wait until the app's workers are done and their messages handled (a worker's
    message may start another worker; an exclusive one may cancel an older one of its
    group, as autosaves do, and a cancelled worker is done too)."""
    for _ in range(3):
        for worker in [w for w in pilot.app.workers if w.name != "_loader"]:
            with contextlib.suppress(WorkerCancelled):
                await worker.wait()
        await pilot.pause()
