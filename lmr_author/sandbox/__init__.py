"""The Docker sandbox: build task images, run untrusted candidates, read verdicts.

Everything here talks to the engine through the docker SDK. Our images and containers
carry the label ``LABEL_KEY`` so that they can be listed and pruned; ``TASK_LABEL``
names the task they belong to. Failures of the engine itself (unreachable, build
failed) raise `InfraError`, which is never counted against a candidate.

Modules: ``engine`` (client), ``images`` (hash-tagged task images), ``runner``
(one implementation's tests in fresh containers), ``harness`` (our test harness, shipped
into each container, and its report), ``verdicts`` (reports to verdicts), ``golden``
(the golden code's test counts, proven and kept), ``replay`` (replay outputs compared on
the host), ``housekeeping`` (list, prune, containers of evaluations that died),
``baseimage`` (offline base image). docs/threat-model.md says what each defends.
"""

from lmr_author.sandbox.errors import InfraError

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
    "OWNER_LABEL",
    "TASK_LABEL",
    "InfraError",
]
