"""The life of one sandbox container: created locked down, removed however it ends.

Every container lmr-author makes for candidate code (test runs, the authoring recorder,
Inspect's agent sandbox) is created here (`sandbox_container`) with the sandbox's
limits, user and scratch space, removed on the way out even on Ctrl-C
(`removed_after`), and labelled so that the next evaluation removes it if we die
(`run_labels`, `lmr_author.sandbox.housekeeping`). Engine calls that are safe to repeat
share one retry policy (`engine_retrying`). What runs inside and what it means is
`lmr_author.sandbox.runner`'s.
"""

from __future__ import annotations

import os
import signal
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, suppress
from datetime import datetime
from types import FrameType
from typing import TYPE_CHECKING, Any

from lmr_author.runtime import (
    DEADLINE_LABEL,
    HOST_LABEL,
    KIND_RUN,
    LABEL_KEY,
    MADE_LABEL,
    OWNER_LABEL,
    TASK_LABEL,
)
from lmr_author.runtime.infra_error import InfraError
from lmr_author.sandbox import provisions
from lmr_author.sandbox.limits import Limits

if TYPE_CHECKING:
    import docker
    from docker.models.containers import Container
    from tenacity import Retrying

    from lmr_author.images.task_images import ImageRef

#: The test user: ``nobody``, which owns nothing in any image we build or know of.
RUN_UID = 65534
RUN_GID = 65534
#: Scratch space of the test user, in parts of the memory limit: tmpfs pages count
#: against it, so a write past the scratch size fails with ENOSPC before memory runs out.
SCRATCH = {"/tmp": 4, "/var/tmp": 8, "/run/lock": 64}


def engine_retrying(
    attempts: int = 3,
    *,
    retry_also: tuple[type[Exception], ...] = (),
    retry_requests: bool = True,
) -> Retrying:
    """The retry policy of engine calls that are safe to repeat: the engine's transient
    failures (an API error but "no such container", a dropped connection), backing off.
    ``retry_requests=False``: an engine that does not answer at all is not retried."""
    import docker.errors
    import requests
    from tenacity import Retrying, retry_if_exception, stop_after_attempt, wait_exponential

    # An engine that does not answer at all (an API error is an answer).
    no_answer = (requests.exceptions.ConnectionError, requests.exceptions.Timeout)

    def transient(error: BaseException) -> bool:
        if isinstance(error, docker.errors.NotFound):
            return False
        if not retry_requests and isinstance(error, no_answer):
            return False
        kinds = (docker.errors.APIError, requests.RequestException, *retry_also)
        return isinstance(error, kinds)

    return Retrying(
        retry=retry_if_exception(transient),
        stop=stop_after_attempt(attempts),
        wait=wait_exponential(multiplier=0.2, max=4),
        reraise=True,
    )


def scratch_tmpfs(limits: Limits) -> dict[str, str]:
    """The scratch folders every sandboxed process gets (`SCRATCH`), as tmpfs mounts."""
    return {
        path: tmpfs_options(f"{max(1, limits.memory_mb // part)}m", 0o1777)
        for path, part in SCRATCH.items()
    }


def tmpfs_options(size: str, mode: int, owner: str = "") -> str:
    """Docker's options of a tmpfs mount: never executable setuid, sized, owned."""
    options = f"rw,nosuid,nodev,size={size},mode={mode:o}"
    if owner:
        options += f",{owner}"
    return options


def run_labels(task_name: str, seconds: float) -> dict[str, str]:
    """Labels of a run container: what it is, whose it is, and when it must be gone."""
    return {
        LABEL_KEY: KIND_RUN,
        TASK_LABEL: task_name,
        OWNER_LABEL: str(os.getpid()),
        HOST_LABEL: socket.gethostname(),
        DEADLINE_LABEL: str(int(time.time() + seconds + 60)),
    }


@contextmanager
def sandbox_container(
    client: docker.DockerClient,
    *,
    image: ImageRef,
    command: list[str],
    workdir: str,
    environment: dict[str, str],
    user: str,
    limits: Limits,
    tmpfs: dict[str, str],
    labels: dict[str, str],
    capabilities: tuple[str, ...] = (),
    log_size_mb: int = 40,
) -> Iterator[Container]:
    """A created (not started) container that is removed on the way out, however it ends.

    Every capability is dropped but ``capabilities`` (a forked candidate's run: the
    supervisor, root, needs them to hand the tests and the two processes to their users;
    the processes that run test or candidate code have none). ``log_size_mb``: what the
    engine keeps of its output (a batch of mutants writes one report each).
    """
    from docker.types import LogConfig, Ulimit

    from lmr_author.runtime.engine import runtime_ulimits, selected_cgroup_parent

    if _stopping.is_set():
        raise InfraError("no new container: the run containers are being killed (Ctrl-C)")
    if _lost:
        remove_lost(client)  # what an engine that stalled kept from us, now it answers
    memory = f"{limits.memory_mb}m"
    made = uuid.uuid4().hex
    labels = {**labels, MADE_LABEL: made}
    with removed_after(
        lambda: client.containers.create(
            image.image_id or image.tag,
            command=command,
            entrypoint=[],
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
            cap_add=list(capabilities) or None,
            security_opt=["no-new-privileges"],
            ulimits=[Ulimit(name="core", soft=0, hard=0)]
            + [Ulimit(name=n, soft=v, hard=v) for n, v in runtime_ulimits(client).items()],
            tmpfs=tmpfs,
            volumes=provisions.volumes(limits.hf_cache),
            device_requests=provisions.device_requests(limits.gpus),
            shm_size="16m",
            cgroup_parent=selected_cgroup_parent(),
            log_config=LogConfig(
                type="json-file", config={"max-size": f"{log_size_mb}m", "max-file": "1"}
            ),
            stdin_open=False,
            tty=False,
            detach=True,
        ),
        made=(client, made),
    ) as container:
        yield container


@contextmanager
def removed_after(
    create: Callable[[], Container], *, made: tuple[Any, str] | None = None
) -> Iterator[Container]:
    """The container ``create`` makes, removed on the way out however it ends.

    Every container lmr-author makes goes through here: Ctrl-C is held while the engine
    creates it, so none can be left behind with an id nobody knows. ``made`` (the
    client and the `MADE_LABEL` value the container carries): when the creation fails
    without an answer (a dropped connection), the engine may have made it all the same;
    it is found by that label and removed (later, if the engine does not answer now).
    """
    with _interrupts_held() as held:
        try:
            container = create()
        except Exception:
            if made is not None:
                _remove_unanswered(*made)
            raise
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
    """Remove the container, retrying the engine's failures; an interrupt must not leave
    it behind (the removal is finished first, then the interrupt goes through). An
    engine that does not answer (stalled, connection dropped) is not waited on here:
    the container is kept in `lost_containers`, removed when the engine answers again
    (`remove_lost`: before the next container, and when the evaluation ends)."""
    import requests

    with _lost_lock:
        if getattr(container, "id", None) in _lost:
            return  # the engine stopped answering for it: `remove_lost` removes it
    interrupted = False
    try:
        for attempt in engine_retrying(retry_also=(_Interrupted,), retry_requests=False):
            with attempt:
                try:
                    _remove_once(container)
                except KeyboardInterrupt:
                    interrupted = True
                    raise _Interrupted from None
    except _Interrupted:
        pass
    except (requests.exceptions.ConnectionError, requests.exceptions.Timeout):
        _remember_lost(container.client, container.id)
    if interrupted:
        raise KeyboardInterrupt


#: Set when this process kills its run containers (a second Ctrl-C): no retry may start
#: a new one after that.
_stopping = threading.Event()


def stop_new_containers() -> None:
    """From now on `sandbox_container` makes no container in this process."""
    _stopping.set()


def allow_new_containers() -> None:
    """Undo `stop_new_containers` (a new evaluation in the same process)."""
    _stopping.clear()


#: What the engine did not let us remove yet: a container id, or the `MADE_LABEL` value
#: of a creation that got no answer ("made=<value>"), -> the client that made it.
_lost: dict[str, Any] = {}
_lost_lock = threading.Lock()


def _remember_lost(client: Any, what: str | None) -> None:
    if client is not None and what:
        with _lost_lock:
            _lost[what] = client


def lost_containers() -> list[str]:
    """Containers this process made and could not remove yet (ids, or ``made=<label>``)."""
    with _lost_lock:
        return sorted(_lost)


def remove_lost(client: Any | None = None, *, timeout: float = 10.0) -> list[str]:
    """Remove the containers the engine did not let us remove (those of ``client``, or
    all); return the ids removed. What the engine still does not answer for stays."""
    import docker.errors
    import requests

    with _lost_lock:
        pending = [(what, c) for what, c in _lost.items() if client is None or c is client]
    removed: list[str] = []
    for what, owner in pending:
        api = owner.api
        try:
            if what.startswith("made="):
                found = api._result(
                    api._get(
                        api._url("/containers/json"),
                        params={"all": 1, "filters": f'{{"label": ["{MADE_LABEL}={what[5:]}"]}}'},
                        timeout=timeout,
                    ),
                    True,
                )
                ids = [str(item.get("Id", "")) for item in found]
            else:
                ids = [what]
            for container_id in ids:
                try:
                    api._raise_for_status(
                        api._delete(
                            api._url("/containers/{0}", container_id),
                            params={"force": True},
                            timeout=timeout,
                        )
                    )
                except docker.errors.NotFound:
                    continue  # gone already
                removed.append(container_id)
        except (docker.errors.DockerException, requests.RequestException):
            continue
        with _lost_lock:
            _lost.pop(what, None)
    return removed


def _remove_unanswered(client: Any, made: str) -> None:
    """Remove what a creation that got no answer may have left (found by its label),
    now if the engine answers, else when it does (`remove_lost`)."""
    _remember_lost(client, f"made={made}")
    remove_lost(client)


class _Interrupted(Exception):
    """Ctrl-C during a removal: retried like an engine failure, raised after."""


def _remove_once(container: Container) -> None:
    import docker.errors

    try:
        container.remove(force=True)
    except docker.errors.NotFound:
        pass  # already gone
    except docker.errors.APIError as error:
        if "already in progress" not in str(error):
            raise


def abandon(container: Container) -> None:
    """The engine stopped answering for ``container``: do not wait on it to remove it
    now; `remove_lost` removes it when the engine answers again, or at the end."""
    _remember_lost(container.client, container.id)


def kill(container: Container) -> None:
    import docker.errors

    with suppress(docker.errors.APIError):  # already stopped: removal follows
        container.kill()


def read_stream(container: Container, *, stdout: bool, cap: int, tail: bool) -> str:
    """One output stream of the container, read in chunks: the head or the tail, capped."""
    kept = bytearray()
    cut = 0
    for chunk in container.logs(stdout=stdout, stderr=not stdout, stream=True, follow=False):
        if tail:
            kept.extend(chunk)
            if len(kept) > cap:
                cut += len(kept) - cap
                del kept[: len(kept) - cap]
        elif len(kept) < cap:
            kept.extend(chunk[: cap - len(kept)])
        else:
            cut += len(chunk)
    text = kept.decode("utf-8", errors="replace")
    if cut and tail:
        text = "[... output cut ...]\n" + text
    return text


def final_state(container: Container) -> dict[str, Any]:
    container.reload()
    state = container.attrs.get("State") or {}
    return dict(state)


def run_time(state: Mapping[str, Any]) -> float | None:
    """Seconds between the container's start and finish, as the engine recorded them."""
    try:
        begun = _parse_time(str(state["StartedAt"]))
        ended = _parse_time(str(state["FinishedAt"]))
    except (KeyError, ValueError):
        return None
    seconds = (ended - begun).total_seconds()
    return seconds if seconds >= 0 else None


def engine_times(state: Mapping[str, Any]) -> dict[str, float]:
    """When the engine recorded the container's start and finish ("started",
    "finished"), as wall-clock seconds; what it did not record is left out."""
    times = {}
    for name, key in (("started", "StartedAt"), ("finished", "FinishedAt")):
        try:
            at = _parse_time(str(state[key])).timestamp()
        except (KeyError, ValueError):
            continue
        if at > 0:
            times[name] = at
    return times


def _parse_time(text: str) -> datetime:
    # The engine gives nanoseconds ("2024-01-01T00:00:00.123456789Z"); keep microseconds.
    head, _, frac = text.rstrip("Z").partition(".")
    return datetime.fromisoformat(f"{head}.{(frac + '000000')[:6]}+00:00")


def put_archive_retrying(container: Container, archive: bytes, attempts: int = 3) -> None:
    """Copy ``archive`` into the created, not yet started container, retrying the
    engine's transient failures (Podman's API under load: "passing bulk input to
    subprocess: write |1: broken pipe"). Nothing has run yet, so a second copy over a
    partial one is safe; what still fails is the engine's, never the candidate's."""
    for attempt in engine_retrying(attempts):
        with attempt:
            copied = container.put_archive("/", archive)
    if not copied:
        raise InfraError("could not copy the harness and the candidate into the container")
