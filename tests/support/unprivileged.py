"""Real permission errors in tests that also run as root (as the README's setup does).

Root reads every file whatever its mode, so a test of unreadable files drops to the
unprivileged user 'nobody' for the part that must be refused. The effective ids are
switched inside this process, which has already imported what it needs (a child
process run as 'nobody' could not reach a Python installed under /root).
"""

from __future__ import annotations

import os
import pwd
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


@contextmanager
def unprivileged() -> Iterator[None]:
    """As root: the body runs with the effective user and group of 'nobody'."""
    if os.geteuid() != 0:
        yield
        return
    try:
        nobody = pwd.getpwnam("nobody")
    except KeyError:
        pytest.skip("running as root and there is no 'nobody' user to drop to")
    os.setegid(nobody.pw_gid)
    os.seteuid(nobody.pw_uid)
    try:
        yield
    finally:
        os.seteuid(0)
        os.setegid(0)


@contextmanager
def shared_tmp_dir() -> Iterator[Path]:
    """A temporary folder 'nobody' can reach (pytest's tmp_path is private to root)."""
    with tempfile.TemporaryDirectory() as name:
        root = Path(name)
        root.chmod(0o755)
        yield root
