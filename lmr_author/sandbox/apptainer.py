"""Apptainer: running one test in a task's image without a daemon (``--runtime apptainer``).

HPC clusters offer Apptainer instead of Docker. Task images are still built by the
Docker engine (their ids are the run keys' image ids); each is converted once into a
SIF file kept in a cache keyed by the image id (a content digest), built from
``docker-archive://`` (the image saved by id, so a tag moved in the meantime cannot
change what is converted). A run is ``apptainer exec`` of our supervisor as PID 1 with
no network, no home, a clean environment, no capabilities, the image writable only in
memory, the harness and the candidate bound read-only, and the scratch folders the
tests write (logs, replay outputs) bound from a fresh per-run folder. As root it runs
the test as ``nobody`` like Docker; as a user it runs as that user (see
docs/threat-model.md for what that changes). Settings that would weaken a verdict
(network, writable binds of anything but our scratch folders) are refused.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import secrets
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from lmr_author.runtime.infra_error import InfraError
from lmr_author.sandbox.limits import Limits
from lmr_author.sandbox.run_cgroup import RunCgroup
from lmr_author.util.errors import UserError

#: Docker image ids: a sha256 content digest.
_IMAGE_ID = re.compile(r"sha256:[0-9a-f]{64}")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: Where the wrapper puts the nonce for the supervisor (the container's private /tmp).
NONCE_FILE = "/tmp/lmr-run/nonce"
#: What the wrapper prints on stdout before the supervisor starts: without it, the
#: container never started, and a missing report is Apptainer's failure, not the test's.
STARTED = "@@lmr-apptainer-started@@"
#: The wrapper (POSIX sh, ours, before any test code): the nonce from stdin into a file
#: only the supervisor reads and deletes, HOME, the start marker, then the supervisor
#: as PID 1.
_WRAPPER = (
    "umask 077 && mkdir /tmp/lmr-run && IFS= read -r n && printf '%s\\n' \"$n\" > "
    + NONCE_FILE
    + f' && unset n && HOME=/tmp && export HOME && echo {STARTED} && exec "$@"'
)
#: The wrapper's $0: how the container's first process is told apart (`run_cgroup`).
WRAPPER_NAME = "lmr-wrapper"
#: Apptainer will not take HOME from --env; the wrapper sets it (to /tmp, as in Docker).
_WRAPPER_SETS = frozenset({"HOME"})
#: Environment variable naming the SIF cache folder (shared by the nodes of a cluster).
SIF_CACHE_ENV = "LMR_SIF_CACHE"


class ApptainerRefused(UserError):
    """A setting that would let a candidate influence its own verdict."""


@dataclass(frozen=True)
class Bind:
    """A host path shown inside the container: read-only, except our scratch folders."""

    source: str
    target: str
    writable: bool = False


def exec_command(
    sif: Path,
    command: Sequence[str],
    *,
    workdir: str,
    limits: Limits,
    env: Mapping[str, str],
    binds: Sequence[Bind] = (),
    run_as: tuple[int, int] | None = None,
    apptainer: str = "apptainer",
    cgroup: RunCgroup | None = None,
) -> list[str]:
    """``apptainer exec`` of ``command`` in ``sif``, as isolated as the Docker run.

    --containall: own PID and IPC namespaces, no host /home, /tmp or environment;
    --cleanenv and only ``env`` inside; --no-privs: no capabilities even for root;
    --net --network none: a loopback-only network namespace; --writable-tmpfs: the
    image is writable in memory only, nothing persists; --no-mount bind-paths: none of
    the administrator's default binds; binds read-only unless ours to write. ``run_as``
    (uid, gid) needs root (``--security uid:N,gid:N``); GPUs come with ``--nv``. The
    limits are Apptainer's flags, or, given ``cgroup`` (made with these very limits),
    that cgroup's, which the container joins (`run_cgroup`): never neither.
    """
    if limits.network:
        raise ApptainerRefused(
            "Apptainer runs are network-less: a test with network could fetch answers",
            hint="Leave the network off for scored runs.",
        )
    if not PurePosixPath(workdir).is_absolute():
        raise ApptainerRefused(f"the working folder {workdir!r} must be absolute")
    argv = [apptainer, "--quiet", "exec", "--containall", "--no-home", "--cleanenv"]
    argv += ["--no-privs", "--net", "--network", "none", "--writable-tmpfs"]
    argv += ["--no-mount", "bind-paths", "--no-init", "--no-eval", "--pwd", workdir]
    if run_as is not None:
        argv += ["--security", f"uid:{run_as[0]},gid:{run_as[1]}"]
    if cgroup is None:
        memory = str(limits.memory_mb * 1024 * 1024)
        argv += ["--memory", memory, "--memory-swap", memory]  # equal: no swap, as in Docker
        argv += ["--cpus", f"{limits.cpus:g}", "--pids-limit", str(limits.pids)]
    elif cgroup.limits != limits:
        raise ValueError("the run's cgroup was made with other limits than the run's")
    environment = {name: value for name, value in env.items() if name not in _WRAPPER_SETS}
    if limits.gpus is not None:
        argv.append("--nv")
        environment.update(_gpu_env(limits.gpus))
    for bind in binds:
        _check_bind(bind)
        argv += ["--bind", f"{bind.source}:{bind.target}:{'rw' if bind.writable else 'ro'}"]
    for name, value in sorted(environment.items()):
        if not _ENV_NAME.fullmatch(name):
            raise ApptainerRefused(f"environment variable name {name!r} is not a plain name")
        argv += ["--env", f"{name}={value}"]
    return [*argv, str(sif), *command]


def gpus_choosable(spec: str) -> bool:
    """Whether Apptainer can give the GPUs ``--gpus spec`` asks for: all of them, or
    named devices; it cannot pick a number of them."""
    return spec == "all" or spec.startswith("device=")


def _gpu_env(spec: str) -> dict[str, str]:
    """Which GPUs the test sees: ``device=0,1`` names them; ``all`` keeps the node's
    (under Slurm, the job's ``CUDA_VISIBLE_DEVICES``); a bare count cannot be chosen."""
    if spec.startswith("device="):
        return {"CUDA_VISIBLE_DEVICES": spec.removeprefix("device=")}
    if gpus_choosable(spec):
        visible = os.environ.get("CUDA_VISIBLE_DEVICES")
        return {"CUDA_VISIBLE_DEVICES": visible} if visible else {}
    raise ApptainerRefused(
        f"--gpus {spec}: Apptainer cannot pick a number of GPUs",
        hint="Use --gpus all (the GPUs Slurm gave the job) or --gpus device=0,1.",
    )


@functools.cache
def host_gpus() -> tuple[str, ...]:
    """The NVIDIA GPUs this host has (``nvidia-smi -L``), none without the driver; asked
    once per process, not once per test file."""
    try:
        listed = subprocess.run(
            ["nvidia-smi", "-L"], capture_output=True, text=True, timeout=60, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return ()
    return tuple(line for line in listed.stdout.splitlines() if line.startswith("GPU "))


def check_gpus_here(spec: str) -> None:
    """``--gpus`` under Apptainer on a host without GPUs: ``--nv`` would run the test on
    the CPU (Docker refuses such a request); refuse it as an infrastructure error."""
    if not host_gpus():
        raise InfraError(
            f"--gpus {spec}: this host has no NVIDIA GPU for Apptainer to give (nvidia-smi "
            "lists none), so the test would run without one",
            hint="Run on a GPU node (with --executor slurm, ask for GPUs with --gres), or "
            "leave out --gpus.",
        )


def _check_bind(bind: Bind) -> None:
    for path in (bind.source, bind.target):
        if not PurePosixPath(path).is_absolute() or "," in path or ":" in path:
            raise ApptainerRefused(
                f"bind {bind.source} -> {bind.target}: paths must be absolute, without ',' or ':'"
            )
    if PurePosixPath(bind.target) == PurePosixPath("/"):
        raise ApptainerRefused("a bind onto / would replace the image")


def wrapped(command: Sequence[str]) -> list[str]:
    """``command`` behind the wrapper that stages the nonce (read from stdin)."""
    return ["/bin/sh", "-c", _WRAPPER, WRAPPER_NAME, *command]


@dataclass(frozen=True)
class Finished:
    """What one ``apptainer exec`` left: exit status, capped output, whether it started."""

    exit_code: int | None
    stdout: str
    stderr: str
    started: bool
    timed_out: bool
    wall_s: float


def run_exec(
    argv: Sequence[str],
    *,
    nonce: str,
    timeout_s: float,
    scratch: Path,
    stdout_cap: int,
    stderr_cap: int,
    cgroup: RunCgroup | None = None,
) -> Finished:
    """Run ``argv`` (an `exec_command` of a `wrapped` command), killed at ``timeout_s``;
    with ``cgroup``, its container joins it before the nonce (what the wrapper waits
    for) is written.

    Output goes to files in ``scratch`` (never to pipes a full buffer could stall), read
    back capped: the head of stdout (the report), the tail of stderr (the test's output).
    """
    out_path, err_path = scratch / "stdout", scratch / "stderr"
    begun = time.monotonic()
    timed_out = False
    with out_path.open("wb") as out, err_path.open("wb") as err:
        try:
            process = subprocess.Popen(
                list(argv), stdin=subprocess.PIPE, stdout=out, stderr=err, start_new_session=True
            )
        except OSError as error:
            raise InfraError(
                f"cannot start {argv[0]}: {error}",
                hint="Install Apptainer (.ci/apptainer-setup shows how) or use --runtime docker.",
            ) from None
        try:
            assert process.stdin is not None
            if cgroup is not None:  # Apptainer's start counts in the time, as with its flags
                cgroup.admit_container(process, WRAPPER_NAME, timeout_s)
            try:
                process.stdin.write(nonce.encode("ascii") + b"\n")
                process.stdin.close()
            except BrokenPipeError:
                pass  # it died at once: its exit status and stderr say why
            left = max(0.0, timeout_s - (time.monotonic() - begun))
            exit_code: int | None = process.wait(timeout=left)
        except subprocess.TimeoutExpired:
            timed_out = True
            exit_code = None
        finally:
            if process.poll() is None:  # timed out, or interrupted: nothing stays behind
                _kill_group(process)
    stdout = read_capped(out_path, stdout_cap, tail=False)
    return Finished(
        exit_code=exit_code,
        stdout=stdout,
        stderr=read_capped(err_path, stderr_cap, tail=True),
        started=STARTED in stdout.split("\n", 1)[0],
        timed_out=timed_out,
        wall_s=time.monotonic() - begun,
    )


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def read_capped(path: Path, cap: int, *, tail: bool) -> str:
    size = path.stat().st_size
    with path.open("rb") as handle:
        if tail and size > cap:
            handle.seek(size - cap)
            return "[... output cut ...]\n" + handle.read().decode("utf-8", "replace")
        return handle.read(cap).decode("utf-8", "replace")


def fatal_message(stderr: str) -> str:
    """Apptainer's own complaint (its FATAL/ERROR lines), for an infrastructure error."""
    lines = [line for line in stderr.splitlines() if line.startswith(("FATAL:", "ERROR:"))]
    return " ".join(" ".join(lines).split())[-600:] or " ".join(stderr.split())[-600:]


def build_command(sif: Path, archive: Path, *, apptainer: str = "apptainer") -> list[str]:
    """Convert a ``docker save`` archive into a SIF file.

    gzip (what every kernel's squashfs reads) at its fastest level: half the time of the
    default level, for files about a tenth bigger.
    """
    return [
        apptainer,
        "--quiet",
        "build",
        "--mksquashfs-args",
        "-comp gzip -Xcompression-level 1",
        str(sif),
        f"docker-archive://{archive}",
    ]


Runner = Callable[[list[str]], None]


def _run(argv: list[str]) -> None:
    try:
        # Its own session: a Ctrl-C of ours must not kill a conversion halfway and have it
        # reported as a failed build; it finishes, or goes with the process.
        done = subprocess.run(
            argv, capture_output=True, text=True, check=False, start_new_session=True
        )
    except OSError as error:
        raise InfraError(f"cannot start {argv[0]}: {error}") from None
    if done.returncode != 0:
        said = " ".join((done.stderr or done.stdout).split())[-400:]
        raise InfraError(f"{argv[0]} build failed (exit {done.returncode}): {said}")


def default_cache_folder() -> Path:
    """``LMR_SIF_CACHE`` (a folder the nodes share), else our cache folder's ``sif/``."""
    from lmr_author.util.locations import cache_dir

    named = os.environ.get(SIF_CACHE_ENV)
    return Path(named) if named else cache_dir("sif")


class SifCache:
    """SIF files of task images, one per image id, built once and shared by the nodes.

    A SIF is named by the image's digest alone, so a rebuilt image (new id) gets a new
    file and a stale SIF can never stand for it. Builds write beside the target and
    rename into place, so a reader sees a whole file or none; threads of one process
    build an image once.
    """

    def __init__(self, folder: Path, *, runner: Runner = _run) -> None:
        self.folder = Path(folder)
        self.runner = runner

    def path_for(self, image_id: str) -> Path:
        if not _IMAGE_ID.fullmatch(image_id):
            raise UserError(
                f"{image_id!r} is not an image id (sha256:<64 hex digits>)",
                hint="Give the id of a built task image (lmr-author sandbox list).",
            )
        return self.folder / f"{image_id.removeprefix('sha256:')}.sif"

    def cached(self, image_id: str) -> Path | None:
        """The SIF of ``image_id`` if the cache holds it (a whole file: builds rename)."""
        path = self.path_for(image_id)
        return path if path.is_file() else None

    def ensure(self, image_id: str, save_archive: Callable[[Path], None]) -> Path:
        """The SIF of ``image_id``; built from the archive ``save_archive`` writes if absent."""
        target = self.path_for(image_id)
        with self._lock(str(target)):
            if target.is_file():
                return target
            self.folder.mkdir(parents=True, exist_ok=True)
            unique = f"{os.getpid()}.{secrets.token_hex(4)}"
            partial = target.with_name(f".{target.stem}.{unique}.partial.sif")
            archive = target.with_name(f".{target.stem}.{unique}.tar")
            try:
                save_archive(archive)
                self.runner(build_command(partial, archive))
                if not partial.is_file():
                    raise InfraError(f"apptainer build wrote no {partial.name}")
                partial.replace(target)
            finally:
                archive.unlink(missing_ok=True)
                partial.unlink(missing_ok=True)
        return target

    @staticmethod
    def _lock(key: str) -> threading.Lock:
        with _LOCKS_GUARD:
            return _LOCKS.setdefault(key, threading.Lock())


_LOCKS: dict[str, threading.Lock] = {}
_LOCKS_GUARD = threading.Lock()
