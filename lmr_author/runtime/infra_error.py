"""The error for failures of the sandbox's infrastructure, not of the candidate.

An unreachable engine or a task image that does not build says nothing about the code
under test; callers report it apart and never count it against the candidate.
`InfraFault` is the kind that may pass: the engine stalled or dropped its connection
while a run was under way, or something outside the run's own limits killed it (a job's
memory cgroup, the node's out-of-memory killer). Such a run is tried once more, then
recorded as an infra-error with the reason.
"""

from __future__ import annotations

from lmr_author.util.errors import UserError


class InfraError(UserError):
    """The Docker engine or a task image failed; the candidate is not to blame."""


class InfraFault(InfraError):
    """A run cut short by the infrastructure mid-way (stall, dropped connection, a kill
    from outside the run's limits): worth one more try."""
