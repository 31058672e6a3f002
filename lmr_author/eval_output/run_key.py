"""The run key: what a stored run's verdict depends on, hashed.

Equal keys mean the stored verdict still holds, so `eval` skips the run when resuming;
anything that could change the verdict (the candidate, the task's files, the image, the
sandbox settings) is in it, and nothing else (keying on ids alone is a known source of
stale results).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

#: Bumped when the meaning of a run key changes, so old runs are run again.
KEY_VERSION = 1


def run_key(
    *,
    task: str,
    implementation: int,
    system: str,
    candidate_sha256: str | None,
    image_id: str,
    settings: dict[str, Any],
    task_sha256: str = "",
    reason: str = "",
) -> str:
    """The identity of a run: equal keys mean the stored verdict still holds."""
    material = {
        "key_version": KEY_VERSION,
        "task": task,
        "implementation": implementation,
        "system": system,
        "candidate_sha256": candidate_sha256,
        "image_id": image_id,
        "settings": settings,
        "task_sha256": task_sha256,
        "reason": reason,
    }
    return hashlib.sha256(
        json.dumps(material, sort_keys=True, default=str).encode("utf-8")
    ).hexdigest()
