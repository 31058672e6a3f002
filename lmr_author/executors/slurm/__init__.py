"""``--executor slurm``: runs in Slurm job arrays whose elements are workers that claim
run after run (`lmr_author.executors.claims`).

One module per job: `backend` (the `Backend` the evaluation pool and ``validate`` use),
`poller` (the thread that submits, polls, retries and cancels), `sbatch` (what an array
asks for, its command line and script), `check` (the user's options against
``sbatch --test-only``), `cli` (Slurm's commands and what they print), `pending` (a
run in flight and the retry rule), `runner` (``validate --run``'s batches).
"""

from lmr_author.executors.slurm.backend import SlurmBackend
from lmr_author.executors.slurm.cli import SlurmError, slurm_command
from lmr_author.executors.slurm.poller import Progress
from lmr_author.executors.slurm.runner import SlurmRunner
from lmr_author.executors.slurm.sbatch import SbatchOptions

__all__ = [
    "Progress",
    "SbatchOptions",
    "SlurmBackend",
    "SlurmError",
    "SlurmRunner",
    "slurm_command",
]
