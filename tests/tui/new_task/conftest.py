"""A repository and a paper made by the tests, for driving the new-task app."""

from __future__ import annotations

import contextlib
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from textual.pilot import Pilot
from textual.worker import WorkerCancelled

from tests.support.git_repo import commit_files

if TYPE_CHECKING:
    from lmr_author.authoring.spec import GoalSpec
    from lmr_author.tui.new_task.app import NewTaskApp

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


# A torch optimizer with long names and copies beside it, as ResearchCodeBench's
# schedule_free is (the timed trial of issue 44 at 80×24): rows, signatures and reasons
# longer than their column.
SF_BODY = '''\
import math
from typing import Callable, Optional

import torch


class {cls}(torch.optim.Optimizer):
    """Schedule-Free AdamW: no learning-rate schedule, iterate averaging instead."""

    def __init__(self, params, lr=0.0025, betas=(0.9, 0.999), eps=1e-8, warmup_steps=0):
        defaults = dict(lr=lr, betas=betas, eps=eps, warmup_steps=warmup_steps, k=0)
        super().__init__(params, defaults)

    def eval(self):
        """Switch the parameters to the averaged point x for evaluation."""
        for group in self.param_groups:
            group["train_mode"] = False

    def train(self):
        """Switch the parameters back to the interpolated point y for training."""
        for group in self.param_groups:
            group["train_mode"] = True

    def step(self, closure: Optional[Callable[[], float]]=None) -> Optional[float]:
        """Performs a single optimization step with schedule-free averaging.

        Arguments:
            closure (callable, optional): A closure that reevaluates the model.
        """
        loss = None
        if closure is not None:
            loss = closure()
        for group in self.param_groups:
            lr = group["lr"]
            beta1, beta2 = group["betas"]
            k = group["k"]
            warmup = min(1.0, (k + 1) / (group["warmup_steps"] + 1))
            ckp1 = 1.0 / (k + 1)
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if "z" not in state:
                    state["z"] = torch.clone(p.data)
                    state["exp_avg_sq"] = torch.zeros_like(p.data)
                z = state["z"]
                exp_avg_sq = state["exp_avg_sq"]
                exp_avg_sq.mul_(beta2).addcmul_(p.grad, p.grad, value=1 - beta2)
                denom = exp_avg_sq.sqrt().add_(group["eps"])
                z.addcdiv_(p.grad, denom, value=-lr * warmup)
                p.data.lerp_(end=z, weight=ckp1)
            group["k"] = k + 1
        return loss
'''


SF_FILES = ("adamw_schedulefree", "adamw_schedulefree_reference", "adamw_schedulefree_closure")


@pytest.fixture
def schedule_free_repo(tmp_path: Path) -> Path:
    root = tmp_path / "schedule_free"
    files = {"schedulefree/__init__.py": "", "paper2code_requirements.txt": "torch\n"}
    for module in SF_FILES:
        cls = "".join(part.capitalize() for part in module.split("_"))
        cls = cls.replace("Adamw", "AdamW").replace("Schedulefree", "ScheduleFree")
        # The closure variant further down its file, as in the published one (line 75).
        padding = "\n" * 60 if module.endswith("closure") else ""
        files[f"schedulefree/{module}.py"] = padding + SF_BODY.format(cls=cls)
    commit_files(root, files, "schedule-free AdamW and two copies")
    return root


@pytest.fixture
def schedule_free_paper(tmp_path: Path) -> Path:
    from lmr_author.authoring.paper_pdf import make_paper_pdf

    out = tmp_path / "schedule_free.pdf"
    make_paper_pdf(
        "The Road Less Scheduled",
        [
            (
                "Method",
                "Schedule-Free AdamW replaces the learning-rate schedule by averaging: each "
                "optimization step updates z with the AdamW step and interpolates the "
                "parameters towards z with weight 1/(k+1), after a warmup of the step size. "
                "Call train before training and eval before evaluation: the averaged point "
                "x is evaluated, the interpolated point y is trained.",
            )
        ],
        out,
        authors="A. Tester",
    )
    return out


def draft_app(
    repo: Path, step: str, name: str, goals: list[GoalSpec] | None = None, **fields: object
) -> NewTaskApp:
    """The app opened on a draft of ``repo`` saved at ``step`` as ``name``, with
    ``goals`` and any other draft fields: where a Pilot test of one step starts."""
    from lmr_author.authoring.spec import TaskSpec, draft_path, save_spec
    from lmr_author.tui.new_task.app import NewTaskApp

    spec = TaskSpec(source=str(repo), repo_path=str(repo), step=step, goals=list(goals or []))
    for key, value in fields.items():
        setattr(spec, key, value)
    save_spec(spec, draft_path(name))
    return NewTaskApp(benchmark_dir=Path("bench"), draft_name=name)


async def settle(pilot: Pilot[int]) -> None:
    """Wait until the app's workers are done and their messages handled (a worker's
    message may start another worker; an exclusive one may cancel an older one of its
    group, as autosaves do, and a cancelled worker is done too)."""
    for _ in range(3):
        for worker in [w for w in pilot.app.workers if w.name != "_loader"]:
            with contextlib.suppress(WorkerCancelled):
                await worker.wait()
        await pilot.pause()
