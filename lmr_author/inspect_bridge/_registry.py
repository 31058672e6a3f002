"""What Inspect finds through the ``inspect_ai`` entry point: the task, solvers, scorers
and the ``lmr-author`` sandbox provider (``inspect eval lmr_author/lmr_bench``)."""

from lmr_author.inspect_bridge.sandbox import LmrSandboxEnvironment
from lmr_author.inspect_bridge.scorer import lmr_judge, lmr_verdict
from lmr_author.inspect_bridge.solvers import lmr_agent, standard_prompting
from lmr_author.inspect_bridge.task import lmr_bench

__all__ = [
    "LmrSandboxEnvironment",
    "lmr_agent",
    "lmr_bench",
    "lmr_judge",
    "lmr_verdict",
    "standard_prompting",
]
