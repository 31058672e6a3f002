"""Calls of SophiaG.step that its published test does not make (`strengthen --driver`).

The published test estimates the Hessian before every step, which fills the optimizer's
state first: the step's own initialisation of a fresh state never runs under it. Here
fresh optimizers step at once, twice, with two sets of hyperparameters.
"""

import torch
from sophia import SophiaG

torch.manual_seed(0)
for options in (
    {"lr": 0.1, "betas": (0.9, 0.99), "rho": 0.04, "weight_decay": 0.1},
    {"lr": 0.05, "betas": (0.5, 0.9), "rho": 0.5, "weight_decay": 0.0},
):
    p = torch.nn.Parameter(torch.randn(32))
    optimizer = SophiaG([p], **options)
    for _ in range(2):
        p.grad = torch.randn(32)
        optimizer.step(bs=64)
