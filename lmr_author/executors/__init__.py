"""Where runs execute: here (``local``) or on a Slurm cluster, for ``eval`` and ``validate``.

An executor changes where a run happens, never what it is: the run key and the verdict
of a run executed by Slurm are those of the same run executed locally (the Slurm
backend hands the local backend's settings through, and its worker runs the same
`DockerBackend` on the node). ``wire`` is the request/result format in the shared
folder, ``worker`` runs one request on a node, ``slurm`` submits and polls (``eval``'s
scored runs and ``validate``'s raw ones), ``gres`` decides what Slurm is asked for per
task and which GPUs a node's container gets, and ``images`` loads a node's missing
image from a saved folder. Which container runtime runs a test (Docker, Podman,
Apptainer) is the sandbox's business (`lmr_author.runtime.engine`).
"""

from __future__ import annotations

EXECUTORS = ("local", "slurm")
