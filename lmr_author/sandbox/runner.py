"""Run one implementation's unit tests against a candidate, in fresh locked-down containers.

Each test file gets its own container from the task image: our harness
(`lmr_author.sandbox.harness`), the run's nonce and the candidate goal file (root-owned,
read-only) are copied in with one ``put_archive`` (no rebuild per submission); the
harness runs the test from the repository folder as ``python unit_test/unit_test_<k>.py``
would, with the repository on PYTHONPATH, and its report (stdout, with the nonce) gives
the verdict. The container is removed afterwards whatever happens (errors, time limit,
Ctrl-C) and carries labels (owner pid, host, deadline) so that the next evaluation
removes it if we die (`housekeeping.remove_orphans`).

Untrusted code runs as ``RUN_UID`` (nobody), which owns nothing in the image, with no
network, memory (and swap), CPU and process limits, no capabilities, no privilege
escalation and no host environment. It can write only to size-limited tmpfs scratch
(``/tmp`` = HOME, ``/var/tmp``, ``/run/lock``, the ``logs`` folder beside the test, the
replay outputs folder); GPUs and a read-only model cache only when asked
(`lmr_author.sandbox.provisions`). The root file system stays writable for the engine
(``put_archive`` into a read-only root is refused) but nothing in it belongs to the test
user. Everything read back (the harness's report, the output) is streamed and capped.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any

from lmr_author.domain.task import Implementation, Task
from lmr_author.images.task_images import ImageRef
from lmr_author.runtime.engine import current_runtime
from lmr_author.runtime.infra_error import InfraError, InfraFault
from lmr_author.sandbox import harness, isolation, provisions
from lmr_author.sandbox.apptainer import NONCE_FILE as APPTAINER_NONCE_FILE
from lmr_author.sandbox.container_life import (
    RUN_GID,
    RUN_UID,
    SCRATCH,
    abandon,
    final_state,
    kill,
    put_archive_retrying,
    read_stream,
    run_labels,
    run_time,
    sandbox_container,
    scratch_tmpfs,
    tmpfs_options,
)
from lmr_author.sandbox.decision import (
    LOG_PROTOCOLS,
    PROTOCOLS,
    Observed,
    choose_protocol,
    file_verdict,
)
from lmr_author.sandbox.limits import Limits
from lmr_author.sandbox.run_result import ImplementationRun, TestVerdict
from lmr_author.sandbox.run_spec import RunSpec
from lmr_author.util.errors import UserError

if TYPE_CHECKING:
    import docker
    from docker.models.containers import Container

__all__ = [
    "ImplementationRun",
    "Limits",
    "LocalRunner",
    "TestVerdict",
    "legacy_log_path",
    "run_tests",
]

#: Keep at most this much of a test's output in a verdict (the tail matters most).
MAX_LOG_CHARS = 200_000
#: The harness's report is read up to this many bytes (outputs + records, see supervise).
MAX_REPORT_BYTES = 16 << 20
#: Where replay-mode tests write their outputs (tmpfs, the test user's).
OUTPUTS_DIR = "/lmr-out"
#: What the supervisor of a run that forks its candidate keeps of root's capabilities:
#: chown/chmod of the tests (CHOWN, FOWNER), killing the test's processes at the time
#: limit (KILL) and starting the two processes as their users (SETUID, SETGID).
FORK_CAPABILITIES = ("CHOWN", "FOWNER", "KILL", "SETUID", "SETGID")
#: Seconds the engine gets beyond the harness's own time limit before we kill.
_ENGINE_SLACK_S = 15.0
#: Seconds a probe of an engine that did not answer a wait may take.
_PROBE_TIMEOUT_S = 10.0
#: Waits on one container (the first and those after a dropped connection).
_WAIT_ATTEMPTS = 3


def legacy_log_path(test_file: str) -> str:
    """Where a legacy test writes its log: ``unit_test/logs/<stem>.log`` beside the test."""
    path = PurePosixPath(test_file)
    return str(path.parent / "logs" / f"{path.stem}.log")


def pass_env(names: Sequence[str], source: Mapping[str, str]) -> dict[str, str]:
    """The variables of ``source`` (e.g. ``os.environ``) named in ``names``, for ``env=``."""
    return {name: source[name] for name in names if name in source}


def run_tests(
    spec: RunSpec,
    *,
    env: Mapping[str, str] | None = None,
    client: docker.DockerClient | None = None,
    test_files: Sequence[str] | None = None,
    uid: int = RUN_UID,
    gid: int = RUN_GID,
) -> ImplementationRun:
    """Run the unit tests of ``spec.impl`` with ``spec.candidate`` as its goal file.

    ``spec.isolated``: the candidate runs in a process (and container) of its own, which
    the test's process calls through a proxy (`lmr_author.sandbox.isolation`), unless
    the task's files show it cannot; False runs it in the test's process (for goals the
    golden run showed cannot cross). The run says which it was. ``spec.test_reads``:
    what the golden proof saw only the tests read; the candidate cannot read it.

    ``spec.candidate`` is the whole goal file (None keeps the image's masked file).
    ``spec.protocol`` is "auto" (replay when the task has recorded expected outputs for
    the test, legacy for tests that only log Passed/Failed, else in-process
    "exit-code"), or one of those names. ``env`` holds the only environment variables
    the test sees besides PYTHONPATH and HOME. ``test_files`` defaults to the
    implementation's tests (its unit test file and info.json's extra_unit_tests);
    ``spec.expected`` maps a test file to what the golden code does (tests run, "Passed"
    lines), when known. Engine failures come back as ``infra_error``, never as a verdict
    of the candidate.
    """
    task, impl, candidate, image = spec.task, spec.impl, spec.candidate, spec.image
    limits, protocol, expected = spec.limits, spec.protocol, spec.expected
    isolated, test_reads = spec.isolated, spec.test_reads
    if protocol not in PROTOCOLS:
        raise UserError(
            f"unknown verdict protocol {protocol!r}",
            hint=f"Use one of: {', '.join(PROTOCOLS)}.",
        )
    started = time.monotonic()
    files = list(test_files) if test_files is not None else impl.test_files
    verdicts: list[TestVerdict] = []
    why_not = isolation.not_isolatable(task, impl) if isolated else "run in the test's process"
    socket = None  # Docker and Podman fork the candidate: an abstract socket
    try:
        if current_runtime().runs_from_sif:
            from lmr_author.sandbox.apptainer_run import CHANNEL_SOCKET, sif_of

            socket = CHANNEL_SOCKET  # a candidate apart: a socket in a folder both bind
            # Converted once per image (an engine is needed only then), off the clock.
            sif_of(image)
            started = time.monotonic()
        elif client is None:
            from lmr_author.runtime.engine import get_client

            client = get_client()
        if client is not None:
            _check_engine_up(client)
        for test_file in files:
            chosen = choose_protocol(impl, test_file, protocol)
            wanted = (expected or {}).get(test_file)
            plan = None
            if why_not is None:
                plan = isolation.plan(
                    task,
                    impl,
                    image.workdir,
                    fork=socket is None,
                    socket=socket,
                    staged=candidate is not None,
                    test_reads=tuple(test_reads),
                    memory_mb=limits.memory_mb,
                    changed=None if wanted is None else wanted.changed,
                )
            outcome = _tried_twice(
                client,
                _run_one,
                client,
                task=task,
                impl=impl,
                candidate=candidate,
                image=image,
                test_file=test_file,
                limits=limits,
                env=env or {},
                protocol=chosen,
                uid=uid,
                gid=gid,
                plan=plan,
            )
            verdicts.append(file_verdict(task, test_file, outcome, chosen, limits, wanted, plan))
    except InfraError as error:
        return ImplementationRun(
            verdicts=verdicts,
            image_id=image.image_id,
            infra_error=error.message,
            wall_s=time.monotonic() - started,
            isolated=why_not is None,
            not_isolated_why=why_not or "",
        )
    return ImplementationRun(
        verdicts=verdicts,
        image_id=image.image_id,
        wall_s=time.monotonic() - started,
        isolated=why_not is None,
        not_isolated_why=why_not or "",
    )


def _check_engine_up(client: docker.DockerClient) -> None:
    """An engine that stayed silent through a whole back-off window makes the runs
    after it infra-errors at once, unless it answers again now (one brief ping)."""
    from lmr_author.runtime import reachability

    if reachability.engine_is_down(client) and not reachability.await_engine(
        client, window_s=0.0, fresh=True
    ):
        raise InfraFault(
            "the container engine stopped answering earlier in this evaluation and "
            "still does not answer",
            hint="Check the engine (systemctl status docker; docker info), then run "
            "the same command again: it runs only what is left.",
        )


def _tried_twice(
    client: docker.DockerClient | None, run: Callable[..., Observed], *args: Any, **kwargs: Any
) -> Observed:
    """``run``, tried once more when the infrastructure cut it short (`InfraFault`),
    after the engine answers again (`await_engine`: back-off, then the engine is taken
    for down). Containers the engine did not let us remove are removed first."""
    from lmr_author.runtime import reachability
    from lmr_author.sandbox.container_life import remove_lost

    try:
        return run(*args, **kwargs)
    except InfraFault as first:
        if client is not None:
            if not reachability.await_engine(client):
                raise InfraFault(
                    f"{first.message}; the engine did not answer again within "
                    f"{reachability.DEFAULT_WINDOW_S:g} s",
                    hint="Check the engine, then run the same command again: it runs "
                    "only what is left.",
                ) from None
            remove_lost(client)
        try:
            return run(*args, **kwargs)
        except InfraFault as second:
            raise InfraFault(
                f"{second.message} (tried twice; the first try: {first.message})",
                hint=second.hint or first.hint,
            ) from None


class LocalRunner:
    """The `Runner` of this machine: each run here, one after the other, on its engine."""

    def __init__(self, client: docker.DockerClient | None = None) -> None:
        self.client = client

    def run_all(
        self, runs: Sequence[RunSpec], on_progress: Callable[[str], None] | None = None
    ) -> list[ImplementationRun]:
        outcomes = []
        for run in runs:
            if on_progress is not None and run.label:
                on_progress(run.label)
            outcomes.append(run_tests(run, client=self.client))
        return outcomes


def _run_one(
    client: docker.DockerClient | None,
    *,
    task: Task,
    impl: Implementation,
    candidate: bytes | None,
    image: ImageRef,
    test_file: str,
    limits: Limits,
    env: Mapping[str, str],
    protocol: str,
    uid: int,
    gid: int,
    plan: isolation.Isolation | None = None,
) -> Observed:
    import docker.errors
    import requests

    from lmr_author.runtime.engine import tmpfs_owner

    workdir = PurePosixPath(image.workdir)
    environment = dict(env)
    environment["PYTHONPATH"] = str(workdir)
    environment["HOME"] = "/tmp"
    environment.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    environment.setdefault("PYTHONUNBUFFERED", "1")
    environment.update(provisions.cache_env(limits.hf_cache is not None))
    legacy_dir = str(workdir / PurePosixPath(legacy_log_path(test_file)).parent)
    scratch = scratch_tmpfs(limits)
    outputs_dir: str | None = None
    in_apptainer = current_runtime().runs_from_sif
    owner = "" if in_apptainer else tmpfs_owner(client, uid, gid)
    # Every test gets the logs folder beside it, fresh and its own, as each published
    # Dockerfile prepares it for its USER: published tests open their log at import, so
    # without it every one of them errors. Nothing of the build context is visible there.
    scratch[legacy_dir] = tmpfs_options(f"{max(1, limits.memory_mb // 16)}m", 0o700, owner)
    if protocol == "replay":
        outputs_dir = OUTPUTS_DIR
        scratch[OUTPUTS_DIR] = tmpfs_options(f"{max(1, limits.memory_mb // 8)}m", 0o700, owner)
        environment["LMR_REPLAY_OUT"] = OUTPUTS_DIR
    nonce = harness.new_nonce()
    forks = plan is not None and plan.fork
    command = harness.command(
        test_file=test_file,
        workdir=str(workdir),
        timeout_s=limits.timeout_s,
        log_dir=legacy_dir if protocol in LOG_PROTOCOLS else None,
        outputs_dir=outputs_dir,
        preload=_preload(impl, test_file),
        isolate=None if plan is None else plan.harness_options(),
        # A forked candidate: the supervisor starts as root and each process drops to its
        # user; otherwise the container's user is the test's.
        user=(uid, gid) if forks else None,
        **({"nonce_file": APPTAINER_NONCE_FILE} if in_apptainer else {}),
    )
    if in_apptainer:
        return _run_in_apptainer(
            image=image,
            command=command,
            environment=environment,
            limits=limits,
            candidate=None if candidate is None else (str(workdir / impl.goal_file), candidate),
            writable=[path for path in scratch if path not in SCRATCH],
            uid=uid,
            gid=gid,
            nonce=nonce,
            plan=plan,
        )
    assert client is not None  # run_tests makes one for every runtime but Apptainer
    if limits.hf_cache is not None:
        try:
            provisions.ensure_visible(client, image.image_id or image.tag, limits.hf_cache)
        except (docker.errors.DockerException, requests.RequestException) as error:
            raise InfraError(f"could not check the --hf-cache mount: {error}") from None
    extra = []
    if candidate is not None:
        # Isolated, the candidate is staged for its own process only; the goal file stays
        # the masked one, which the test's process imports.
        where = plan.source_path if plan is not None and plan.source_path else None
        extra.append((where or str(workdir / impl.goal_file), candidate, 0o444))
    try:
        with sandbox_container(
            client,
            image=image,
            command=command,
            workdir=str(workdir),
            environment=environment,
            user="0:0" if forks else f"{uid}:{gid}",
            limits=limits,
            tmpfs=scratch,
            labels=run_labels(task.name, limits.timeout_s + _ENGINE_SLACK_S),
            capabilities=FORK_CAPABILITIES if forks else (),
        ) as container:
            keeper = (0, 0) if forks else (uid, gid)  # the supervisor's user takes the nonce
            staged = harness.archive(nonce=nonce, uid=keeper[0], gid=keeper[1], extra=extra)
            put_archive_retrying(container, staged)
            begun = time.monotonic()
            container.start()
            exit_code, timed_out = _await_end(client, container, limits, test_file)
            wall = time.monotonic() - begun
            state = final_state(container)
            report_text = read_stream(container, stdout=True, cap=MAX_REPORT_BYTES, tail=False)
            output = read_stream(container, stdout=False, cap=MAX_LOG_CHARS, tail=True)
            report = harness.parse_report(report_text, nonce)
            if report.found and report.exit_status is None:
                report.exit_status = exit_code
            oom_killed = bool(state.get("OOMKilled"))
            if oom_killed or (report.exit_status == -9 and not report.timed_out):
                _refuse_outside_kill(str(container.id), limits, test_file, oom_killed)
            return Observed(
                exit_code=exit_code,
                output=output,
                report=report,
                duration_s=report.duration_s or run_time(state) or wall,
                timed_out=timed_out,
                oom_killed=oom_killed,
            )
    except InfraError:
        raise
    except docker.errors.ImageNotFound:
        raise InfraError(
            f"the task image {image.tag} is gone", hint="Build it again (ensure_image)."
        ) from None
    except (docker.errors.DockerException, requests.RequestException) as error:
        if isinstance(error, docker.errors.NotFound):
            # The container went away under us (a second Ctrl-C kills and removes the
            # running ones): not a fault to try again.
            raise InfraError(f"the container of {test_file} is gone: {error}") from None
        text = str(error) if isinstance(error, docker.errors.APIError) else _in_words(error)
        if limits.gpus is not None and "device driver" in str(error):
            raise InfraError(
                f"this container engine cannot give containers GPUs (--gpus {limits.gpus}): "
                f"{error}",
                hint="Run on a host with GPUs and the NVIDIA container toolkit, or leave out "
                "--gpus.",
            ) from None
        raise InfraFault(f"the container engine failed while running {test_file}: {text}") from None


def _in_words(error: Exception) -> str:
    """What a failed request to the engine means, in words (not urllib3's repr)."""
    import requests

    if isinstance(error, requests.exceptions.ReadTimeout):
        return "it stopped answering (no answer within the client's time-out)"
    if isinstance(error, requests.exceptions.ConnectionError):
        return "the connection to it dropped"
    return str(error)


def _await_end(
    client: docker.DockerClient, container: Container, limits: Limits, test_file: str
) -> tuple[int | None, bool]:
    """Wait for the started container's end: (its exit status, whether its time ran out).

    A time-out is the candidate's only on the run's own evidence: the supervisor inside
    reports it (read by `decide`), or the engine's record of the container (StartedAt to
    FinishedAt) shows it ran past the limit. A wait the engine did not answer says
    neither: the engine is asked what became of the container (a run that ended by
    itself is read as it ended; after a dropped connection the run is waited on again
    for the rest of its time); an engine that does not answer, or a container it did
    not run that long, is an `InfraFault`, never a verdict.
    """
    import requests

    deadline = time.monotonic() + limits.timeout_s + _ENGINE_SLACK_S
    lost = ""
    for _ in range(_WAIT_ATTEMPTS):
        try:
            status = container.wait(timeout=max(1.0, deadline - time.monotonic()))
            return int(status.get("StatusCode", -1)), False
        except (requests.exceptions.ReadTimeout, requests.exceptions.ConnectionError) as error:
            lost = _in_words(error)
        state = _probe_state(client, str(container.id))
        if state is None:
            abandon(container)
            raise InfraFault(
                f"the container engine stopped answering while {test_file} ran ({lost}) "
                "and did not answer again"
            )
        if not state.get("Running"):
            return int(state.get("ExitCode", -1)), False  # ended by itself: read as it is
        if time.monotonic() < deadline:
            continue  # the connection dropped, the run goes on: wait for the rest
        kill(container)
        ran = run_time(_probe_state(client, str(container.id)) or {})
        if ran is not None and ran >= limits.timeout_s:
            return None, True  # the engine's own record: it ran past the limit
        seconds = "an unknown time" if ran is None else f"{ran:.1f} s"
        raise InfraFault(
            f"the container engine did not report the end of {test_file} within "
            f"{limits.timeout_s + _ENGINE_SLACK_S:g} s ({lost}), and its record shows the "
            f"container ran {seconds}, not the limit of {limits.timeout_s:g} s"
        )
    raise InfraFault(
        f"the connection to the container engine dropped {_WAIT_ATTEMPTS} times while "
        f"{test_file} ran ({lost})"
    )


def _probe_state(client: docker.DockerClient, container_id: str) -> dict[str, Any] | None:
    """The container's State as the engine records it, asked briefly; None when the
    engine does not answer; `InfraError` (not retried) when the container is gone."""
    import docker.errors
    import requests

    from lmr_author.runtime.engine import brief_get

    try:
        found = brief_get(client, "/containers/{0}/json", container_id, timeout=_PROBE_TIMEOUT_S)
    except docker.errors.NotFound:
        # Removed under us (a second Ctrl-C kills and removes the running containers):
        # nothing to wait for, nothing to try again.
        raise InfraError("the run's container was removed while it ran") from None
    except (docker.errors.DockerException, requests.RequestException):
        return None
    state = found.get("State") if isinstance(found, dict) else None
    return dict(state) if isinstance(state, dict) else None


def _refuse_outside_kill(
    container_id: str, limits: Limits, test_file: str, engine_oom: bool
) -> None:
    """An out-of-memory kill of the test is the candidate's only when the run's own
    limit did it: the kernel's record names the cgroup whose limit was reached
    (`oom_record`). Another cgroup's (a Slurm job's, the container's parent) or the
    machine's is an `InfraFault`; no record at all is no out-of-memory kill (a process
    that sent itself SIGKILL). Without a readable record, an out-of-memory kill the
    engine saw (``engine_oom``) under a parent cgroup whose limit is below the run's
    cannot be placed: infrastructure too."""
    from lmr_author.runtime.engine import selected_cgroup_parent
    from lmr_author.sandbox.oom_record import blame, cgroup_memory_limit, read_oom_kills

    kills = read_oom_kills()
    if kills is not None:
        blamed = blame(container_id, kills)
        if blamed:
            raise InfraFault(
                f"{test_file} was killed by {blamed}, not by the run's own limit of "
                f"{limits.memory_mb} MB (the kernel's record of the kill names it)",
                hint="Give the job more memory (--mem: the run's limit plus the worker's "
                "own need), or run where the node has memory to spare.",
            )
        return
    if not engine_oom:
        return  # the kill the supervisor saw may be the test's own doing
    parent = selected_cgroup_parent()
    bound = None if parent is None else cgroup_memory_limit(parent)
    if bound is not None and bound < limits.memory_mb << 20:
        raise InfraFault(
            f"{test_file} was killed for memory inside cgroup {parent}, whose limit "
            f"({bound >> 20} MB) is below the run's own ({limits.memory_mb} MB): the kill "
            "cannot be placed on the candidate (the kernel's record is not readable here)",
            hint="Give the job more memory (--mem).",
        )


def _run_in_apptainer(
    *,
    image: ImageRef,
    command: list[str],
    environment: dict[str, str],
    limits: Limits,
    candidate: tuple[str, bytes] | None,
    writable: list[str],
    uid: int,
    gid: int,
    nonce: str,
    plan: isolation.Isolation | None,
) -> Observed:
    """The Apptainer twin of the Docker run above: same command, report and limits."""
    from lmr_author.sandbox.apptainer import check_gpus_here, fatal_message
    from lmr_author.sandbox.apptainer_run import run_in_apptainer

    if limits.gpus is not None:
        check_gpus_here(limits.gpus)

    finished, candidate_output = run_in_apptainer(
        image=image,
        command=command,
        environment=environment,
        limits=limits,
        # Isolated, the candidate goes to its own process, never to the test's.
        files=[candidate] if candidate is not None and plan is None else [],
        writable=writable,
        run_as=(uid, gid),
        nonce=nonce,
        stdout_cap=MAX_REPORT_BYTES,
        stderr_cap=MAX_LOG_CHARS,
        timeout_s=limits.timeout_s + _ENGINE_SLACK_S,
        plan=plan,
        candidate_file=candidate,
    )
    if not finished.started and not finished.timed_out:
        # The wrapper prints its marker before any test code runs: without it, Apptainer
        # itself failed (image, mounts, limits), which is ours to report, not the test's.
        raise InfraError(
            f"apptainer could not start the test container: {fatal_message(finished.stderr)}",
            hint="Check 'apptainer exec' on this node (cgroups for --memory/--cpus need "
            "root or cgroups v2 delegation), or use --runtime docker.",
        )
    report = harness.parse_report(finished.stdout, nonce)
    if report.found and report.exit_status is None:
        report.exit_status = finished.exit_code
    return Observed(
        exit_code=finished.exit_code,
        output=finished.stderr,
        report=report,
        duration_s=report.duration_s or finished.wall_s,
        timed_out=finished.timed_out,
        oom_killed=False,  # the supervisor reports a killed test as -9 (see _verdict)
        candidate_output=candidate_output,
    )


def _preload(impl: Implementation, test_file: str) -> list[str]:
    """Assertion libraries to load (and watch) before the test: those the tests name."""
    try:
        source = (impl.repo_dir / test_file).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    wanted = []
    if "numpy" in source or "np." in source:
        wanted += ["numpy", "numpy.testing"]
    if "torch" in source:
        wanted += ["torch", "torch.testing"]
    return wanted
