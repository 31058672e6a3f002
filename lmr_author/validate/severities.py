"""The default severity of each registered rule, filled as rules register.

Its own module so that `TaskContext` (which makes findings) and the registry (whose
checks take a `TaskContext`) need not import each other.
"""

from __future__ import annotations

from lmr_author.validate.findings import Severity

#: Rule id -> severity, written by `lmr_author.validate.rules.rule`.
DEFAULT_SEVERITY: dict[str, Severity] = {}
