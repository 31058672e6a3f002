"""The error for failures of the sandbox's infrastructure, not of the candidate.

An unreachable engine or a task image that does not build says nothing about the code
under test; callers report it apart and never count it against the candidate.
"""

from __future__ import annotations

from lmr_author.util.errors import UserError


class InfraError(UserError):
    """The Docker engine or a task image failed; the candidate is not to blame."""
