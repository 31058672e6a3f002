"""How several samples of one system are named, so `eval` scores each and `report` finds them.

``eval`` accepts one prediction per system, task and implementation, so sample ``k`` of
system ``NAME`` is recorded as system ``NAME+s<k>`` (``+`` is allowed in system names
and rare in model names). With one sample the name stays ``NAME``. ``report`` groups the
``NAME+s<k>`` systems back into ``NAME`` for pass@1 and pass@k.
"""

from __future__ import annotations

import re

SEPARATOR = "+s"
_SAMPLE = re.compile(r"^(?P<base>.+)\+s(?P<k>[1-9][0-9]*)$")


def sample_system(system: str, sample: int, samples: int) -> str:
    """The system name of sample ``sample`` (1-based) of ``samples``."""
    return system if samples == 1 else f"{system}{SEPARATOR}{sample}"


def split_sample(system: str) -> tuple[str, int | None]:
    """``("NAME", k)`` for ``NAME+s<k>``, ``(system, None)`` for any other name."""
    match = _SAMPLE.fullmatch(system)
    if match is None:
        return system, None
    return match.group("base"), int(match.group("k"))
