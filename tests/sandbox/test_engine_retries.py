"""Engine calls that are safe to repeat survive the engine's transient failures: copying
the harness into a created container, and removing a container (also through Ctrl-C).

Podman's API under load fails a copy now and then ("passing bulk input to subprocess:
write |1: broken pipe"); before the container starts that is safe to retry, and a run
must not become an infra-error for it. What keeps failing is still the engine's.
"""

from __future__ import annotations

import docker.errors
import pytest

from lmr_author.runtime.infra_error import InfraError
from lmr_author.sandbox import container_life
from lmr_author.sandbox.container_life import put_archive_retrying


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


class _Removable:
    """Answers ``remove`` with the given outcomes in turn (an exception, or None: gone)."""

    def __init__(self, *outcomes: BaseException | None) -> None:
        self.outcomes = list(outcomes)
        self.calls = 0

    def remove(self, force: bool) -> None:
        assert force
        self.calls += 1
        outcome = self.outcomes.pop(0) if self.outcomes else None
        if outcome is not None:
            raise outcome


def test_a_removal_the_engine_fails_is_retried() -> None:
    container = _Removable(docker.errors.APIError("500: device busy"), None)
    container_life._remove(container)  # type: ignore[arg-type]
    assert container.calls == 2


def test_a_container_already_gone_or_going_is_not_retried() -> None:
    for answer in (
        docker.errors.NotFound("no such container"),
        docker.errors.APIError("removal of container x is already in progress"),
    ):
        container = _Removable(answer)
        container_life._remove(container)  # type: ignore[arg-type]
        assert container.calls == 1


def test_a_removal_that_keeps_failing_is_the_engines_error() -> None:
    container = _Removable(*[docker.errors.APIError("500: device busy")] * 5)
    with pytest.raises(docker.errors.APIError):
        container_life._remove(container)  # type: ignore[arg-type]
    assert container.calls == 3


def test_ctrl_c_during_a_removal_finishes_the_removal_first() -> None:
    container = _Removable(KeyboardInterrupt(), None)
    with pytest.raises(KeyboardInterrupt):
        container_life._remove(container)  # type: ignore[arg-type]
    assert container.calls == 2  # removed, then the interrupt went through
