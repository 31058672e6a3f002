"""What a task's golden code needs of the machine, as its author declares it in info.json.

Published tasks say nothing about hardware; some need a GPU for minutes. Our optional
top-level key records it, so that schedulers can ask for it (``eval --executor slurm``
asks Slurm for ``--gres=gpu:N`` per task) and a machine without it can say "not runnable
here" before running anything::

    "hardware": {"gpus": 1, "gpu_memory_gb": 24}

``gpus`` is how many GPUs one run uses (0, the default, is none); ``gpu_memory_gb`` is
the memory each of them needs, if it matters. A task without the key needs no GPU.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lmr_author.util.errors import UserError

#: The info.json key; absent means `NO_HARDWARE`.
HARDWARE_KEY = "hardware"


@dataclass(frozen=True)
class Hardware:
    """A task's declared needs: GPUs per run and memory per GPU (GB), if any."""

    gpus: int = 0
    gpu_memory_gb: float | None = None

    @property
    def needs_gpu(self) -> bool:
        return self.gpus > 0

    def describe(self) -> str:
        """``"1 GPU with 24 GB"``, ``"2 GPUs"``, or ``"no GPU"``."""
        if not self.needs_gpu:
            return "no GPU"
        text = f"{self.gpus} GPU" + ("s" if self.gpus > 1 else "")
        if self.gpu_memory_gb is not None:
            text += f" with {self.gpu_memory_gb:g} GB" + (" each" if self.gpus > 1 else "")
        return text

    def to_info(self) -> dict[str, Any]:
        data: dict[str, Any] = {"gpus": self.gpus}
        if self.gpu_memory_gb is not None:
            data["gpu_memory_gb"] = self.gpu_memory_gb
        return data


NO_HARDWARE = Hardware()


class HardwareError(UserError):
    """The ``hardware`` value of an info.json is not shaped as documented."""


def parse_hardware(value: Any, *, file: Path | None = None) -> Hardware:
    """The `Hardware` an info.json's ``hardware`` value declares (None: the key is absent).

    Raises `HardwareError` naming the JSON path: a wrong value would silently schedule
    a GPU task on a CPU node (or hold a GPU for nothing), so it is never guessed.
    """
    if value is None:
        return NO_HARDWARE
    hint = 'Write e.g. "hardware": {"gpus": 1, "gpu_memory_gb": 24}, or remove the key.'
    if not isinstance(value, dict):
        raise HardwareError(
            f"'{HARDWARE_KEY}' must be an object, got {type(value).__name__}",
            file=file,
            where=f"$.{HARDWARE_KEY}",
            hint=hint,
        )
    unknown = sorted(set(value) - {"gpus", "gpu_memory_gb"})
    if unknown:
        raise HardwareError(
            f"unknown key '{unknown[0]}' (known: gpus, gpu_memory_gb)",
            file=file,
            where=f"$.{HARDWARE_KEY}.{unknown[0]}",
            hint=hint,
        )
    gpus = value.get("gpus", 0)
    if isinstance(gpus, bool) or not isinstance(gpus, int) or gpus < 0:
        raise HardwareError(
            f"'gpus' must be a whole number of GPUs, 0 or more, got {gpus!r}",
            file=file,
            where=f"$.{HARDWARE_KEY}.gpus",
            hint=hint,
        )
    memory = value.get("gpu_memory_gb")
    if memory is not None:
        if (
            isinstance(memory, bool)
            or not isinstance(memory, int | float)
            or not math.isfinite(memory)
            or memory <= 0
        ):
            raise HardwareError(
                f"'gpu_memory_gb' must be a positive number of gigabytes, got {memory!r}",
                file=file,
                where=f"$.{HARDWARE_KEY}.gpu_memory_gb",
                hint=hint,
            )
        if gpus == 0:
            raise HardwareError(
                "'gpu_memory_gb' is given but 'gpus' is 0 (or absent)",
                file=file,
                where=f"$.{HARDWARE_KEY}",
                hint='Say how many GPUs a run uses: "gpus": 1.',
            )
        memory = float(memory)
    return Hardware(gpus=gpus, gpu_memory_gb=memory)
