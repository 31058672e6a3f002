"""Where runs execute: here (``local``, the worker pool's threads) or on a Slurm cluster.

An executor changes where a run happens, never what it is: the run key and the verdict
of a run executed by Slurm are those of the same run executed locally (the Slurm
backend hands the local backend's settings through, and its worker runs the same
`DockerBackend` on the node). ``wire`` is the request/result format in the shared
folder, ``worker`` runs one request on a node, ``slurm`` submits and polls, and
``apptainer`` builds Apptainer command lines and its SIF cache.
"""

from __future__ import annotations

EXECUTORS = ("local", "slurm")
