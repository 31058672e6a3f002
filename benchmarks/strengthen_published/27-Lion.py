"""Calls of Lion.step that its published test does not make (`strengthen --driver`).

The published test trains five steps on one batch: the momentum and the gradient always
agree in sign, so the sign of the interpolated update never shows beta1. Here momentum
is built up one way and gradients of every size come the other way: the update's sign
flips where beta1 weighs the two, so a wrong weight moves a parameter the wrong way.
"""

import torch
from lion_pytorch import Lion

for betas, weight_decay in (((0.9, 0.99), 0.1), ((0.5, 0.8), 0.0), ((0.95, 0.9), 0.5)):
    p = torch.nn.Parameter(torch.zeros(256))
    optimizer = Lion([p], lr=0.01, betas=betas, weight_decay=weight_decay)
    p.grad = torch.ones(256)
    optimizer.step()
    p.grad = -torch.logspace(-3, 1, 256)
    optimizer.step()
    p.grad = torch.linspace(-2.0, 2.0, 256)
    optimizer.step()
