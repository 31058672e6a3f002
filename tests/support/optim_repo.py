"""A repository whose goal changes its inputs in place: an optimizer's ``step``.

``SignMomentum.step`` returns None and updates its parameters and its per-parameter
state, keyed by the parameter objects themselves (as torch's optimizers do), on
``tests.support.isolation_tasks``'s NumPy stand-in for torch. ``DRIVER`` trains a layer
for three steps.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from tests.support.git_repo import commit_files
from tests.support.isolation_tasks import LIBRARY

GOAL_FILE = "optim/sign.py"
CLASS_NAME = "SignMomentum"
GOAL_FUNCTION = "step"

OPTIMIZER = textwrap.dedent(
    """\
    import numpy as np

    from optim.tinynn import Optimizer


    class SignMomentum(Optimizer):
        def __init__(self, params, lr=0.1, beta=0.9):
            super().__init__(params, dict(lr=lr, beta=beta))

        def step(self, closure=None):
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    state = self.state[p]
                    if not state:
                        state["momentum"] = np.zeros_like(p.data)
                    momentum = state["momentum"]
                    p.data -= group["lr"] * np.sign(momentum * group["beta"] + p.grad)
                    momentum *= group["beta"]
                    momentum += p.grad
            return None
    """
)
DRIVER = textwrap.dedent(
    """\
    import numpy as np
    from optim.tinynn import Linear
    from optim.sign import SignMomentum

    layer = Linear(3, 2, seed=1)
    optimizer = SignMomentum(layer.parameters(), lr=0.05)
    for step in range(3):
        x = np.linspace(-1, 1, 6).reshape(2, 3) * (step + 1)
        y = layer(x)
        layer.weight.grad = y.T @ x / 2
        layer.bias.grad = y.sum(axis=0)
        optimizer.step()
    """
)


def write_optim_repo(parent: Path) -> Path:
    """The repository, committed, as ``<parent>/optim-repo``."""
    root = parent / "optim-repo"
    files = {"optim/__init__.py": "", "optim/tinynn.py": LIBRARY, GOAL_FILE: OPTIMIZER}
    commit_files(root, files, "first")
    return root
