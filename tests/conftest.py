"""Shared fixtures: a Docker engine (real, never mocked) and isolated user folders."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}

# The sandbox's task and image fixtures, for the tests of every package that runs them.
from tests.support.sandbox_fixtures import (  # noqa: E402
    calc_task,
    image_cleanup,
    legacy_task,
    no_leftovers,
    task_factory,
)

__all__ = ["calc_task", "image_cleanup", "legacy_task", "no_leftovers", "task_factory"]


@pytest.fixture(autouse=True)
def _isolated_user_dirs(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Keep caches, label stores and drafts of tests out of the user's home."""
    base = tmp_path_factory.mktemp("userdirs")
    monkeypatch.setenv("LMR_AUTHOR_CACHE_DIR", str(base / "cache"))
    monkeypatch.setenv("LMR_AUTHOR_DATA_DIR", str(base / "data"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(base / "xdg-cache"))
    monkeypatch.setenv("XDG_DATA_HOME", str(base / "xdg-data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(base / "xdg-config"))


@pytest.fixture(autouse=True)
def backoff_waits(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The LLM client's waits between attempts, recorded instead of slept through.

    Retry tests then assert the waits the back-off asked for (exactly, no timing
    window) and take no wall time; a child process still sleeps for real.
    """
    waits: list[float] = []
    monkeypatch.setattr("lmr_author.llm.client.pause", waits.append)
    return waits


@pytest.fixture(scope="session")
def docker_client() -> Iterator[Any]:
    """A client of a real Docker engine. Skips without one on a laptop; fails in CI."""
    try:
        import docker

        client = docker.from_env()
        client.ping()
    except Exception as error:  # any failure means: no engine
        if IN_CI:
            pytest.fail(f"CI=true but no Docker engine is reachable: {error}")
        pytest.skip(f"no Docker engine: {error}")
    yield client
    client.close()


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return Path(__file__).resolve().parent.parent
