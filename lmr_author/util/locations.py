"""Where lmr-author keeps its user-level files (XDG via platformdirs).

``XDG_CACHE_HOME`` / ``XDG_DATA_HOME`` move these on Linux; ``LMR_AUTHOR_CACHE_DIR``
overrides the cache folder outright (handy in tests and CI).
"""

from __future__ import annotations

import os
from pathlib import Path

from platformdirs import user_cache_path, user_data_path

APP_NAME = "lmr-author"


def cache_dir(*parts: str) -> Path:
    """The cache folder (or a subfolder of it), created on demand."""
    override = os.environ.get("LMR_AUTHOR_CACHE_DIR")
    base = Path(override) if override else user_cache_path(APP_NAME, appauthor=False)
    path = base.joinpath(*parts)
    path.mkdir(parents=True, exist_ok=True)
    return path


def data_dir(*parts: str) -> Path:
    """The data folder (label stores, drafts), created on demand."""
    override = os.environ.get("LMR_AUTHOR_DATA_DIR")
    base = Path(override) if override else user_data_path(APP_NAME, appauthor=False)
    path = base.joinpath(*parts)
    path.mkdir(parents=True, exist_ok=True)
    return path


def private_dir(path: Path) -> Path:
    """Create ``path`` (and missing parents) with mode 0700; drafts and caches are private."""
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    if path.stat().st_mode & 0o077:
        os.chmod(path, 0o700)
    return path
