"""One test run under Apptainer: its SIF, its files staged for binding, and clean-up.

The Docker runner copies the harness and the candidate into the container; Apptainer
has no such call, so they are staged in a fresh private folder and bound read-only
(the harness at its usual place, the candidate over the masked goal file). The folders
the test writes (its logs, replay outputs) are fresh folders of that run, bound
writable and owned by the test user. An isolated run (`lmr_author.sandbox.isolation`)
starts a second ``apptainer exec`` for the candidate's process, with the candidate's
half of the harness, the candidate over the goal file, empty folders over the tests,
and one folder both bind for the socket. The folder goes when the run ends, however it
ends.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from lmr_author.images.task_images import ImageRef
from lmr_author.runtime.infra_error import InfraError
from lmr_author.sandbox import harness, provisions
from lmr_author.sandbox.apptainer import (
    Bind,
    Finished,
    SifCache,
    default_cache_folder,
    exec_command,
    read_capped,
    run_exec,
    wrapped,
)
from lmr_author.sandbox.isolation import Isolation
from lmr_author.sandbox.limits import Limits
from lmr_author.sandbox.run_cgroup import run_cgroup

#: Where both processes of an isolated run find their socket's folder.
CHANNEL_DIR = "/lmr-chan"
CHANNEL_SOCKET = f"{CHANNEL_DIR}/socket"


def sif_of(image: ImageRef) -> Path:
    """The SIF of ``image``: from the cache, else converted from the engine's copy (saved
    by id). A node without an engine runs only images whose SIF is cached already."""
    import docker.errors
    import requests

    from lmr_author.runtime.engine import bulk_client

    cache = SifCache(default_cache_folder())
    if (cached := cache.cached(image.image_id)) is not None:
        return cached

    def save(archive: Path) -> None:
        try:
            with bulk_client() as client, archive.open("wb") as handle:
                for chunk in client.images.get(image.image_id).save(named=False):
                    handle.write(chunk)
        except InfraError as error:  # no engine here
            raise InfraError(
                f"no SIF of image {image.image_id[:19]} in {cache.folder}, and no Docker "
                f"engine here to convert it ({error.message})",
                hint="Convert the images where Docker runs (eval --runtime apptainer "
                "converts them while preparing) into a --sif-cache folder the nodes share.",
            ) from None
        except (docker.errors.DockerException, requests.RequestException) as error:
            raise InfraError(f"could not save the task image {image.tag}: {error}") from None

    return cache.ensure(image.image_id, save)


def run_in_apptainer(
    *,
    image: ImageRef,
    command: Sequence[str],
    environment: Mapping[str, str],
    limits: Limits,
    files: Sequence[tuple[str, bytes]],
    writable: Sequence[str],
    run_as: tuple[int, int],
    nonce: str,
    stdout_cap: int,
    stderr_cap: int,
    timeout_s: float,
    plan: Isolation | None = None,
    candidate_file: tuple[str, bytes] | None = None,
) -> tuple[Finished, str]:
    """Run ``command`` (the supervisor's) in the task's SIF with ``files`` (container
    path, bytes) bound read-only and ``writable`` folders of its own; with ``plan``,
    beside the candidate's process (``candidate_file`` over the goal file, None: the
    masked one). Returns the run and the candidate's process's output."""
    sif = sif_of(image)
    as_root = os.geteuid() == 0
    test_uid = run_as[0] if as_root else os.getuid()  # as a user, the test runs as us
    stage = Path(tempfile.mkdtemp(prefix="lmr-apptainer-"))
    try:
        staged = _stage_harness(stage / "harness", harness.sources())
        binds = [Bind(str(staged), str(harness.HARNESS_DIR))]
        binds += _staged_files(stage, "file", files)
        for index, target in enumerate(writable):
            binds.append(Bind(str(_own_folder(stage / f"scratch-{index}", run_as)), target, True))
        if limits.hf_cache is not None:
            binds.append(Bind(limits.hf_cache, provisions.HUB_MOUNT))
        with contextlib.ExitStack() as stack:
            candidate_output = None
            if plan is not None:
                channel = Bind(str(_own_folder(stage / "channel", run_as)), CHANNEL_DIR, True)
                binds.append(channel)
                candidate_output = stack.enter_context(
                    _candidate(
                        sif,
                        stage,
                        plan=plan,
                        goal=candidate_file,
                        channel=channel,
                        image=image,
                        environment=environment,
                        limits=limits,
                        run_as=run_as if as_root else None,
                        test_uid=test_uid,
                    )
                )
            cgroup = stack.enter_context(run_cgroup(limits, test_uid))
            argv = exec_command(
                sif,
                wrapped(command),
                workdir=image.workdir,
                limits=limits,
                env=environment,
                binds=binds,
                run_as=run_as if as_root else None,  # only root may choose the user
                cgroup=cgroup,
            )
            io = stage / "io"
            io.mkdir(mode=0o700)
            finished = run_exec(
                argv,
                nonce=nonce,
                timeout_s=timeout_s,
                scratch=io,
                stdout_cap=stdout_cap,
                stderr_cap=stderr_cap,
                cgroup=cgroup,
            )
        return finished, "" if candidate_output is None else candidate_output.read()
    finally:
        shutil.rmtree(stage, ignore_errors=True)


class _CandidateOutput:
    """Where the candidate's process writes; read once it has been stopped."""

    def __init__(self, path: Path, cap: int) -> None:
        self.path = path
        self.cap = cap

    def read(self) -> str:
        return read_capped(self.path, self.cap, tail=True) if self.path.exists() else ""


@contextlib.contextmanager
def _candidate(
    sif: Path,
    stage: Path,
    *,
    plan: Isolation,
    goal: tuple[str, bytes] | None,
    channel: Bind,
    image: ImageRef,
    environment: Mapping[str, str],
    limits: Limits,
    run_as: tuple[int, int] | None,
    test_uid: int,
) -> Iterator[_CandidateOutput]:
    """The candidate's ``apptainer exec``, running until the block ends, then stopped;
    in a job, in a cgroup of its own with the run's limits (as Apptainer's flags give it),
    joined while `held` waits."""
    staged = _stage_harness(stage / "candidate", harness.candidate_sources())
    binds = [Bind(str(staged), str(harness.HARNESS_DIR)), channel]
    if goal is not None and plan.source_path:  # where the candidate's loader reads it
        binds += _staged_files(stage, "goal", [(plan.source_path, goal[1])])
    empty_folder = stage / "empty-folder"
    empty_folder.mkdir(mode=0o555)
    binds += [Bind(str(empty_folder), folder) for folder in plan.hidden_folders]
    binds += _staged_files(stage, "emptied", [(path, b"") for path in plan.emptied_files])
    if limits.hf_cache is not None:
        binds.append(Bind(limits.hf_cache, provisions.HUB_MOUNT))
    with run_cgroup(limits, test_uid) as cgroup:
        command = plan.candidate_command()
        argv = exec_command(
            sif,
            command if cgroup is None else held(command),
            workdir=image.workdir,
            limits=limits,
            env={name: value for name, value in environment.items() if name != "LMR_REPLAY_OUT"},
            binds=binds,
            run_as=run_as,
            cgroup=cgroup,
        )
        output = stage / "candidate-output"
        with output.open("wb") as sink:
            try:
                process = subprocess.Popen(
                    argv,
                    stdin=subprocess.DEVNULL if cgroup is None else subprocess.PIPE,
                    stdout=sink,
                    stderr=sink,
                    start_new_session=True,
                )
            except OSError as error:
                raise InfraError(f"cannot start {argv[0]} for the candidate: {error}") from None
        try:
            if cgroup is not None:
                assert process.stdin is not None
                cgroup.admit_container(process, HOLD_NAME, limits.timeout_s)
                with contextlib.suppress(BrokenPipeError):
                    process.stdin.write(b"go\n")
                    process.stdin.close()
            yield _CandidateOutput(output, 64_000)
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, 9)
            process.wait()


#: The $0 of `held`: how the candidate's container's first process is told apart.
HOLD_NAME = "lmr-hold"
_HOLD = 'IFS= read -r _ && exec "$@"'


def held(command: Sequence[str]) -> list[str]:
    """``command`` behind a wrapper that waits for a line on stdin: the container's
    first process, moved into its cgroup before anything of the candidate's runs."""
    return ["/bin/sh", "-c", _HOLD, HOLD_NAME, *command]


def _own_folder(folder: Path, run_as: tuple[int, int]) -> Path:
    """A fresh folder of the test user's (as root; otherwise it is ours, the user's)."""
    folder.mkdir(mode=0o700)
    if os.geteuid() == 0:
        os.chown(folder, *run_as)
    return folder


def _staged_files(stage: Path, prefix: str, files: Sequence[tuple[str, bytes]]) -> list[Bind]:
    """Each (container path, bytes) as a read-only file of the stage, bound there."""
    binds = []
    for index, (target, data) in enumerate(files):
        source = stage / f"{prefix}-{index}"
        source.write_bytes(data)
        source.chmod(0o444)
        binds.append(Bind(str(source), target))
    return binds


def _stage_harness(folder: Path, sources: Sequence[tuple[str, bytes]]) -> Path:
    folder.mkdir()
    for name, data in sources:
        path = folder / name
        path.write_bytes(data)
        path.chmod(0o444)
    folder.chmod(0o555)
    folder.parent.chmod(0o711)  # the test user reaches nothing here but what is bound
    return folder
