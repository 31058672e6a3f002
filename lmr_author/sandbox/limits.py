"""What a sandbox run is given: the resources of its test container, and what it gets.

A plain frozen dataclass with no Docker in it: evaluation, validation, Slurm's sbatch
options (--mem, --time, --cpus) and the TUI hold and compare limits without an engine.
Its fields are part of every run key (`lmr_author.eval_loop.backend`).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    """Resource limits of one test container (untrusted code runs inside), and what it gets."""

    memory_mb: int = 1024
    cpus: float = 1.0
    pids: int = 256
    timeout_s: float = 120.0
    network: bool = False
    #: GPUs as ``--gpus`` names them (``all``, a count, ``device=0,1``); None: no GPU.
    gpus: str | None = None
    #: Host folder of Hugging Face hub snapshots, mounted read-only; None: no model cache.
    hf_cache: str | None = None
