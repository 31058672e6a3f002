"""Run one implementation's unit tests against a candidate, in fresh locked-down containers.

Each test file gets its own container from the task image: the candidate goal file is
copied in with ``put_archive`` (no rebuild per submission), the test runs from the
repository folder as ``python unit_test/unit_test_<k>.py`` with the repository on
PYTHONPATH, and the container is removed afterwards whatever happens (errors, time
limit, Ctrl-C). Untrusted code gets no network, memory (and swap), CPU and process
limits, a non-root user, no capabilities, no privilege escalation and no host
environment. The root file system stays writable (only the container's own layer, thrown
away with it): the engine refuses ``put_archive`` into a read-only root, and a tmpfs
loses its contents before the legacy log could be read back.
"""

from __future__ import annotations

import contextlib
import io
import signal
import tarfile
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import PurePosixPath
from types import FrameType
from typing import TYPE_CHECKING, Any

from lmr_author.errors import UserError
from lmr_author.sandbox import KIND_RUN, LABEL_KEY, TASK_LABEL
from lmr_author.sandbox.errors import InfraError
from lmr_author.sandbox.images import DEFAULT_GID, DEFAULT_UID, ImageRef
from lmr_author.sandbox.results import ImplementationRun, Limits, TestVerdict
from lmr_author.sandbox.verdicts import (
    PROTOCOLS,
    Classified,
    classify_exit,
    detect_protocol,
    legacy_log_verdict,
)
from lmr_author.task import Implementation, Task

if TYPE_CHECKING:
    import docker
    from docker.models.containers import Container

__all__ = ["ImplementationRun", "Limits", "TestVerdict", "legacy_log_path", "run_tests"]

#: Keep at most this much of a test's output in a verdict (the tail matters most).
MAX_LOG_CHARS = 200_000
#: Grace given to the engine for its own calls on top of the test's time limit.
_ENGINE_SLACK_S = 30.0


@dataclass(frozen=True)
class _Outcome:
    exit_code: int | None
    output: str
    legacy_log: str | None
    duration_s: float
    timed_out: bool
    oom_killed: bool


def legacy_log_path(test_file: str) -> str:
    """Where a legacy test writes its log: ``unit_test/logs/<stem>.log`` beside the test."""
    path = PurePosixPath(test_file)
    return str(path.parent / "logs" / f"{path.stem}.log")


def pass_env(names: Sequence[str], source: Mapping[str, str]) -> dict[str, str]:
    """The variables of ``source`` (e.g. ``os.environ``) named in ``names``, for ``env=``."""
    return {name: source[name] for name in names if name in source}


def run_tests(
    task: Task,
    impl: Implementation,
    candidate: bytes | None,
    *,
    image: ImageRef,
    limits: Limits | None = None,
    protocol: str = "auto",
    env: Mapping[str, str] | None = None,
    client: docker.DockerClient | None = None,
    test_files: Sequence[str] | None = None,
    uid: int = DEFAULT_UID,
    gid: int = DEFAULT_GID,
) -> ImplementationRun:
    """Run the unit tests of ``impl`` with ``candidate`` as its goal file.

    ``candidate`` is the whole goal file (None keeps the image's masked file).
    ``protocol`` is "auto" (legacy for tests that only log Passed/Failed), "exit-code"
    or "legacy". ``env`` holds the only environment variables the test sees besides
    PYTHONPATH. ``test_files`` defaults to the implementation's unit test file.
    Engine failures come back as ``infra_error``, never as a verdict of the candidate.
    """
    if protocol not in PROTOCOLS:
        raise UserError(
            f"unknown verdict protocol {protocol!r}",
            hint=f"Use one of: {', '.join(PROTOCOLS)}.",
        )
    limits = limits or Limits()
    started = time.monotonic()
    files = list(test_files) if test_files is not None else [impl.unit_test_file]
    verdicts: list[TestVerdict] = []
    try:
        if client is None:
            from lmr_author.sandbox.engine import get_client

            client = get_client()
        for test_file in files:
            chosen = _choose_protocol(impl, test_file, protocol)
            outcome = _run_one(
                client,
                task=task,
                impl=impl,
                candidate=candidate,
                image=image,
                test_file=test_file,
                limits=limits,
                env=env or {},
                user=f"{uid}:{gid}",
                uid=uid,
                gid=gid,
            )
            verdicts.append(_verdict(test_file, outcome, chosen, limits))
    except InfraError as error:
        return ImplementationRun(
            verdicts=verdicts,
            image_id=image.image_id,
            infra_error=error.message,
            wall_s=time.monotonic() - started,
        )
    return ImplementationRun(
        verdicts=verdicts, image_id=image.image_id, wall_s=time.monotonic() - started
    )


def _choose_protocol(impl: Implementation, test_file: str, protocol: str) -> str:
    if protocol != "auto":
        return protocol
    try:
        source = (impl.repo_dir / test_file).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return "exit-code"
    return detect_protocol(source)


def _verdict(test_file: str, outcome: _Outcome, protocol: str, limits: Limits) -> TestVerdict:
    if outcome.timed_out:
        decided = Classified(
            "timeout", f"no result within the time limit of {limits.timeout_s:g} s"
        )
    elif outcome.oom_killed or outcome.exit_code is None:
        decided = classify_exit(
            outcome.exit_code if outcome.exit_code is not None else 137,
            outcome.output,
            oom_killed=outcome.oom_killed,
            memory_mb=limits.memory_mb,
        )
    elif protocol == "legacy":
        decided = legacy_log_verdict(outcome.legacy_log)
        if decided.verdict != "pass" and outcome.exit_code != 0:
            crashed = classify_exit(outcome.exit_code, outcome.output, memory_mb=limits.memory_mb)
            decided = Classified(crashed.verdict, f"{crashed.reason}; {decided.reason}")
    else:
        decided = classify_exit(outcome.exit_code, outcome.output, memory_mb=limits.memory_mb)
    return TestVerdict(
        test_file=test_file,
        verdict=decided.verdict,
        reason=decided.reason,
        duration_s=outcome.duration_s,
        log=outcome.output,
        exit_code=None if outcome.timed_out else outcome.exit_code,
        legacy_log=outcome.legacy_log,
        protocol=protocol,
    )


def _run_one(
    client: docker.DockerClient,
    *,
    task: Task,
    impl: Implementation,
    candidate: bytes | None,
    image: ImageRef,
    test_file: str,
    limits: Limits,
    env: Mapping[str, str],
    user: str,
    uid: int,
    gid: int,
) -> _Outcome:
    import docker.errors
    import requests

    workdir = PurePosixPath(image.workdir)
    environment = dict(env)
    environment["PYTHONPATH"] = str(workdir)
    environment.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    environment.setdefault("PYTHONUNBUFFERED", "1")
    try:
        with _container(
            client,
            image=image,
            command=["python", test_file],
            workdir=str(workdir),
            environment=environment,
            user=user,
            limits=limits,
            labels={LABEL_KEY: KIND_RUN, TASK_LABEL: task.name},
        ) as container:
            _stage(
                container,
                workdir,
                candidate=None if candidate is None else (impl.goal_file, candidate),
                directories=[str(PurePosixPath(legacy_log_path(test_file)).parent)],
                uid=uid,
                gid=gid,
            )
            begun = time.monotonic()
            container.start()
            timed_out = False
            exit_code: int | None = None
            try:
                status = container.wait(timeout=limits.timeout_s)
                exit_code = int(status.get("StatusCode", -1))
            except (requests.exceptions.ReadTimeout, requests.exceptions.ConnectionError):
                # The SDK reports its read timeout as either; anything earlier is the engine.
                if time.monotonic() - begun < limits.timeout_s * 0.95:
                    raise
                timed_out = True
                _kill(container)
            wall = time.monotonic() - begun
            state = _state(container)
            output = _logs(container)
            legacy = (
                None if timed_out else _read_file(container, workdir / legacy_log_path(test_file))
            )
            return _Outcome(
                exit_code=exit_code,
                output=output,
                legacy_log=legacy,
                duration_s=_run_time(state) or wall,
                timed_out=timed_out,
                oom_killed=bool(state.get("OOMKilled")),
            )
    except docker.errors.ImageNotFound:
        raise InfraError(
            f"the task image {image.tag} is gone", hint="Build it again (ensure_image)."
        ) from None
    except (docker.errors.DockerException, requests.RequestException) as error:
        raise InfraError(f"the Docker engine failed while running {test_file}: {error}") from None


@contextmanager
def _container(
    client: docker.DockerClient,
    *,
    image: ImageRef,
    command: list[str],
    workdir: str,
    environment: dict[str, str],
    user: str,
    limits: Limits,
    labels: dict[str, str],
) -> Iterator[Container]:
    """A created (not started) container that is removed on the way out, however it ends."""
    from docker.types import LogConfig, Ulimit

    memory = f"{limits.memory_mb}m"
    with _interrupts_held() as held:
        container = client.containers.create(
            image.image_id or image.tag,
            command=command,
            working_dir=workdir,
            environment=environment,
            user=user,
            labels=labels,
            network_mode="bridge" if limits.network else "none",
            mem_limit=memory,
            memswap_limit=memory,
            nano_cpus=int(limits.cpus * 1e9),
            pids_limit=limits.pids,
            cap_drop=["ALL"],
            security_opt=["no-new-privileges"],
            ulimits=[Ulimit(name="core", soft=0, hard=0)],
            tmpfs={"/tmp": "rw,nosuid,nodev,size=256m"},
            log_config=LogConfig(type="json-file", config={"max-size": "10m", "max-file": "1"}),
            stdin_open=False,
            tty=False,
            detach=True,
        )
    try:
        held.release()  # a Ctrl-C during the creation surfaces here, and removes it
        yield container
    finally:
        _remove(container)


class _HeldInterrupts:
    """Ctrl-C (SIGINT) held back while the engine creates a container.

    The SDK's create is two requests (create, then inspect); an interrupt between them
    would leave a container nobody knows the id of. Held, it is raised by `release`
    once the container is in hand and its removal is guaranteed.
    """

    def __init__(self) -> None:
        self.pending = False

    def hold(self, signum: int, frame: FrameType | None) -> None:
        self.pending = True

    def release(self) -> None:
        if self.pending:
            self.pending = False
            raise KeyboardInterrupt


@contextmanager
def _interrupts_held() -> Iterator[_HeldInterrupts]:
    held = _HeldInterrupts()
    # Handlers can be set from the main thread only; elsewhere SIGINT never lands anyway.
    # and a handler installed outside Python (None) cannot be put back.
    current = signal.getsignal(signal.SIGINT)
    if threading.current_thread() is not threading.main_thread() or current is None:
        yield held
        return
    previous = signal.signal(signal.SIGINT, held.hold)
    try:
        yield held
    finally:
        signal.signal(signal.SIGINT, previous)


def _remove(container: Container) -> None:
    """Remove the container, retrying once; an interrupt must not leave it behind."""
    import docker.errors

    interrupted = False
    for attempt in range(3):
        try:
            container.remove(force=True)
            break
        except docker.errors.NotFound:
            break
        except docker.errors.APIError as error:
            if "already in progress" in str(error):
                break
            if attempt == 2:
                raise
            time.sleep(0.2)
        except KeyboardInterrupt:
            interrupted = True  # finish the removal first, then let the interrupt through
    if interrupted:
        raise KeyboardInterrupt


def _kill(container: Container) -> None:
    import docker.errors

    with contextlib.suppress(docker.errors.APIError):  # already stopped: removal follows
        container.kill()


def _stage(
    container: Container,
    workdir: PurePosixPath,
    *,
    candidate: tuple[str, bytes] | None,
    directories: Sequence[str],
    uid: int,
    gid: int,
) -> None:
    """Copy the candidate in and give the test user its log folder, in one archive.

    The log folder is made (or handed over) for images whose repository belongs to
    root, so legacy tests running as the non-root user can still write their logs.
    """
    buffer = io.BytesIO()
    now = int(time.time())
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        for folder in directories:
            info = tarfile.TarInfo(folder)
            info.type = tarfile.DIRTYPE
            info.mode = 0o755
            info.uid, info.gid, info.mtime = uid, gid, now
            archive.addfile(info)
        if candidate is not None:
            name, data = candidate
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mode = 0o644
            info.uid, info.gid, info.mtime = uid, gid, now
            archive.addfile(info, io.BytesIO(data))
    if not container.put_archive(str(workdir), buffer.getvalue()):
        raise InfraError(f"could not copy the candidate into {workdir} in the container")


def _read_file(container: Container, path: PurePosixPath) -> str | None:
    import docker.errors

    try:
        chunks, _stat = container.get_archive(str(path))
    except docker.errors.NotFound:
        return None
    buffer = io.BytesIO(b"".join(chunks))
    with tarfile.open(fileobj=buffer, mode="r") as archive:
        for member in archive.getmembers():
            if member.isfile():
                handle = archive.extractfile(member)
                if handle is not None:
                    return handle.read().decode("utf-8", errors="replace")[-MAX_LOG_CHARS:]
    return None


def _logs(container: Container) -> str:
    raw = container.logs(stdout=True, stderr=True)
    text = raw.decode("utf-8", errors="replace") if isinstance(raw, bytes) else str(raw)
    if len(text) > MAX_LOG_CHARS:
        text = "[... output cut ...]\n" + text[-MAX_LOG_CHARS:]
    return text


def _state(container: Container) -> dict[str, Any]:
    container.reload()
    state = container.attrs.get("State") or {}
    return dict(state)


def _run_time(state: Mapping[str, Any]) -> float | None:
    """Seconds between the container's start and finish, as the engine recorded them."""
    try:
        begun = _parse_time(str(state["StartedAt"]))
        ended = _parse_time(str(state["FinishedAt"]))
    except (KeyError, ValueError):
        return None
    seconds = (ended - begun).total_seconds()
    return seconds if seconds >= 0 else None


def _parse_time(text: str) -> datetime:
    # The engine gives nanoseconds ("2024-01-01T00:00:00.123456789Z"); keep microseconds.
    head, _, frac = text.rstrip("Z").partition(".")
    return datetime.fromisoformat(f"{head}.{(frac + '000000')[:6]}+00:00")
