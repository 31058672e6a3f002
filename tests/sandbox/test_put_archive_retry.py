"""Copying the harness into a created container survives the engine's transient failures.

Podman's API under load fails a copy now and then ("passing bulk input to subprocess:
write |1: broken pipe"); before the container starts that is safe to retry, and a run
must not become an infra-error for it. What keeps failing is still the engine's.
"""

from __future__ import annotations

import docker.errors
import pytest

from lmr_author.runtime.infra_error import InfraError
from lmr_author.sandbox.runner import put_archive_retrying


class _Container:
    """Answers ``put_archive`` as an engine would: fails ``failures`` times, then says ``ok``."""

    def __init__(self, failures: int, ok: bool = True) -> None:
        self.failures = failures
        self.ok = ok
        self.copies: list[bytes] = []

    def put_archive(self, path: str, data: bytes) -> bool:
        assert path == "/"
        self.copies.append(data)
        if len(self.copies) <= self.failures:
            raise docker.errors.APIError(
                "500 Server Error: passing bulk input to subprocess: write |1: broken pipe"
            )
        return self.ok


def test_a_transient_failure_is_retried_until_the_copy_lands() -> None:
    container = _Container(failures=2)
    put_archive_retrying(container, b"tar", attempts=3)  # type: ignore[arg-type]
    assert container.copies == [b"tar"] * 3


def test_an_engine_that_keeps_failing_is_the_engines_error() -> None:
    container = _Container(failures=10)
    with pytest.raises(docker.errors.APIError):
        put_archive_retrying(container, b"tar", attempts=2)  # type: ignore[arg-type]
    assert len(container.copies) == 2


def test_a_refused_copy_is_an_infrastructure_error() -> None:
    container = _Container(failures=0, ok=False)
    with pytest.raises(InfraError, match="could not copy the harness"):
        put_archive_retrying(container, b"tar")  # type: ignore[arg-type]
    assert len(container.copies) == 1
