"""The container runtime every image build and run goes through, and what we mark.

Which engine a process talks to (``engine``: dockerd, Podman's API service, or
Apptainer beside dockerd; ``--runtime``), the labels on every image and container we
make (so that they can be listed and pruned; ``TASK_LABEL`` names the task they belong
to), and `InfraError` (``infra_error``): a failure of the engine itself (unreachable,
build failed), never counted against a candidate. Building images (`lmr_author.images`)
and running candidates (`lmr_author.sandbox`) sit on it.
"""

from lmr_author.runtime.infra_error import InfraError

LABEL_KEY = "org.lmr-author.managed"
"""Label on every image and container we make; its value says what kind it is."""
TASK_LABEL = "org.lmr-author.task"
"""Label naming the task (folder name) an image or container belongs to."""
KEY_LABEL = "org.lmr-author.image-key"
"""Label holding the full content hash an image was built from."""

OWNER_LABEL = "org.lmr-author.owner-pid"
"""Label of a run container: the pid of the process that runs it."""
HOST_LABEL = "org.lmr-author.owner-host"
"""Label of a run container: the host name of that process."""
DEADLINE_LABEL = "org.lmr-author.deadline"
"""Label of a run container: Unix time after which it is left over, whoever owns it."""
MADE_LABEL = "org.lmr-author.made-id"
"""Label of every sandbox container: a fresh id per creation, so that a container whose
creation lost its answer (a dropped connection) can still be found and removed."""

#: Values of ``LABEL_KEY``.
KIND_BASE = "base"
KIND_TASK_IMAGE = "task-image"
KIND_RUN = "run"

__all__ = [
    "DEADLINE_LABEL",
    "HOST_LABEL",
    "KEY_LABEL",
    "KIND_BASE",
    "KIND_RUN",
    "KIND_TASK_IMAGE",
    "LABEL_KEY",
    "MADE_LABEL",
    "OWNER_LABEL",
    "TASK_LABEL",
    "InfraError",
]
