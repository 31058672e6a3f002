"""A persistent on-disk cache of judge answers, so judging the same thing twice is free.

The key is the sha256 of the endpoint, the model, the sampling parameters and the exact
prompt messages; any change to one of them asks again. Each entry is one small JSON
file (``<cache>/judge/<k[:2]>/<k>.json``) written atomically, so concurrent judges and
interrupted runs never leave a half-written entry, and clearing the cache is ``rm -r``.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from lmr_author.atomic import atomic_write_json
from lmr_author.locations import cache_dir

CACHE_VERSION = 1


def cache_key(
    endpoint: str, model: str, parameters: dict[str, Any], messages: list[dict[str, str]]
) -> str:
    """The sha256 (hex) naming one question to one model at one endpoint."""
    canonical = json.dumps(
        {
            "version": CACHE_VERSION,
            "endpoint": endpoint.rstrip("/"),
            "model": model,
            "parameters": parameters,
            "messages": messages,
        },
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class JudgeCache:
    """Answers by cache key; unreadable entries count as misses."""

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder if folder is not None else cache_dir("judge")

    def path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        try:
            data = json.loads(self.path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) and data.get("key") == key else None

    def put(self, key: str, entry: dict[str, Any]) -> None:
        atomic_write_json(self.path(key), {**entry, "key": key}, indent=2)
