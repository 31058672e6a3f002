"""An on-disk cache of model answers keyed by the exact request; only good answers go in.

The key is the sha256 of the endpoint, the model, the sampling parameters and the exact
messages; any change to one of them asks again. Each entry is one small JSON file
(``<folder>/<k[:2]>/<k>.json``) written atomically, so concurrent writers and
interrupted runs never leave a half-written entry, and clearing it is ``rm -r``.

Only real answers may be stored: an empty answer, an HTML page or prose the caller
could not read must be asked again next time, so `put` refuses entries the caller did
not mark good, and `get` re-checks every entry with the caller's ``accept`` (entries
written by older versions that cached bad answers are misses).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lmr_author.util.atomic import atomic_write_json
from lmr_author.util.errors import UserError
from lmr_author.util.locations import cache_dir

Entry = dict[str, Any]


def request_key(
    endpoint: str,
    model: str,
    parameters: dict[str, Any],
    messages: list[dict[str, str]],
    *,
    version: int = 1,
) -> str:
    """The sha256 (hex) naming one question to one model at one endpoint."""
    canonical = json.dumps(
        {
            "version": version,
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


class ResponseCache:
    """Good answers by request key; unreadable or unaccepted entries count as misses.

    ``namespace`` names the folder under the user cache (``judge``, ``generate``) when no
    ``folder`` is given.
    """

    def __init__(self, folder: Path | None = None, *, namespace: str = "llm") -> None:
        if folder is None:
            try:
                folder = cache_dir(namespace)
            except OSError as error:
                raise UserError(
                    f"cannot use the cache folder ({error.strerror or error})",
                    file=getattr(error, "filename", None),
                    hint="Set LMR_AUTHOR_CACHE_DIR to a folder you may write to.",
                ) from None
        self.folder = folder

    def path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def get(self, key: str, accept: Callable[[Entry], bool] | None = None) -> Entry | None:
        """The entry stored under ``key`` if there is one and ``accept`` (if given) likes it."""
        try:
            data = json.loads(self.path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError, RecursionError):
            return None
        if not isinstance(data, dict) or data.get("key") != key:
            return None
        if accept is not None and not accept(data):
            return None
        return data

    def put(self, key: str, entry: Entry, *, good: bool) -> bool:
        """Store ``entry`` when ``good`` (a real, readable answer); return whether it was.

        ``good`` is a required keyword so that no caller stores an answer without
        deciding that it is one.
        """
        if not good:
            return False
        try:
            atomic_write_json(self.path(key), {**entry, "key": key}, indent=2)
        except OSError:  # a full disk or a read-only cache costs a request next time, no more
            return False
        return True
