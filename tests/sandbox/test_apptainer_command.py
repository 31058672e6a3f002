"""Apptainer command construction and the SIF cache, without running Apptainer (the real
runs are in tests/cluster/apptainer/)."""

from __future__ import annotations

from pathlib import Path

import pytest

from lmr_author.sandbox.apptainer import (
    NONCE_FILE,
    STARTED,
    ApptainerRefused,
    Bind,
    SifCache,
    build_command,
    exec_command,
    wrapped,
)
from lmr_author.sandbox.limits import Limits
from lmr_author.util.errors import UserError

IMAGE = "sha256:" + "ab" * 32
SIF = Path("/cache/x.sif")


def _argv(**changes: object) -> list[str]:
    kwargs: dict[str, object] = {
        "workdir": "/work/repo",
        "limits": Limits(memory_mb=512, cpus=1.0, pids=64),
        "env": {"HOME": "/tmp", "PYTHONPATH": "/work/repo"},
        "binds": [Bind("/shared/r1/candidate.py", "/work/repo/goal.py")],
    }
    kwargs.update(changes)
    return exec_command(SIF, ["python", "-m", "harness"], **kwargs)  # type: ignore[arg-type]


def test_the_run_is_contained_networkless_and_limited() -> None:
    argv = _argv()
    assert argv[:3] == ["apptainer", "--quiet", "exec"]
    for flag in ("--containall", "--no-home", "--cleanenv", "--no-privs", "--writable-tmpfs"):
        assert flag in argv
    assert argv[argv.index("--network") + 1] == "none" and "--net" in argv
    assert argv[argv.index("--no-mount") + 1] == "bind-paths"
    assert argv[argv.index("--memory") + 1] == str(512 * 1024 * 1024)
    assert argv[argv.index("--memory-swap") + 1] == str(512 * 1024 * 1024)
    assert argv[argv.index("--pids-limit") + 1] == "64"
    assert argv[argv.index("--pwd") + 1] == "/work/repo"
    assert argv[argv.index("--bind") + 1] == "/shared/r1/candidate.py:/work/repo/goal.py:ro"
    assert argv[-4:] == [str(SIF), "python", "-m", "harness"]
    assert "--writable" not in argv and "--fakeroot" not in argv
    assert "--keep-privs" not in argv and "--userns" not in argv


def test_only_the_given_environment_goes_in() -> None:
    argv = _argv()
    envs = [argv[i + 1] for i, arg in enumerate(argv) if arg == "--env"]
    # HOME is the wrapper's to set: Apptainer refuses it from --env.
    assert envs == ["PYTHONPATH=/work/repo"]


@pytest.mark.parametrize(
    "changes",
    [
        {"limits": Limits(network=True)},
        {"workdir": "relative"},
        {"binds": [Bind("relative", "/work/x")]},
        {"binds": [Bind("/a,b", "/work/x")]},
        {"binds": [Bind("/a", "/work/x:rw")]},
        {"binds": [Bind("/a", "/")]},
        {"env": {"A=B": "c"}},
    ],
)
def test_settings_that_weaken_a_verdict_are_refused(changes: dict[str, object]) -> None:
    with pytest.raises(ApptainerRefused):
        _argv(**changes)


def test_build_converts_the_saved_archive() -> None:
    assert build_command(Path("/c/x.sif"), Path("/c/x.tar")) == [
        "apptainer",
        "--quiet",
        "build",
        "--mksquashfs-args",
        "-comp gzip -Xcompression-level 1",
        "/c/x.sif",
        "docker-archive:///c/x.tar",
    ]


def test_the_cache_builds_once_per_image_id(tmp_path: Path) -> None:
    built: list[list[str]] = []

    def runner(argv: list[str]) -> None:
        built.append(argv)
        assert Path(argv[-1].removeprefix("docker-archive://")).read_bytes() == b"tar"
        Path(argv[-2]).write_bytes(b"SIF")

    cache = SifCache(tmp_path, runner=runner)
    first = cache.ensure(IMAGE, lambda path: path.write_bytes(b"tar"))
    again = cache.ensure(IMAGE, lambda path: pytest.fail("saved twice"))

    assert first == again == tmp_path / f"{'ab' * 32}.sif"
    assert first.read_bytes() == b"SIF" and len(built) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == [first.name]  # no leftovers
    other = cache.path_for("sha256:" + "cd" * 32)
    assert other != first


def test_a_failed_build_leaves_no_sif(tmp_path: Path) -> None:
    def runner(argv: list[str]) -> None:
        Path(argv[-2]).write_bytes(b"half")
        raise UserError("apptainer build failed")

    cache = SifCache(tmp_path, runner=runner)
    with pytest.raises(UserError):
        cache.ensure(IMAGE, lambda path: path.write_bytes(b"tar"))
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("bad", ["latest", "sha256:xyz", "sha256:" + "AB" * 32, "../x"])
def test_the_cache_takes_image_ids_only(tmp_path: Path, bad: str) -> None:
    with pytest.raises(UserError, match="not an image id"):
        SifCache(tmp_path).path_for(bad)


def test_only_our_scratch_folders_are_writable_and_root_runs_the_test_as_nobody() -> None:
    argv = _argv(
        binds=[Bind("/s/harness", "/opt/lmr-harness"), Bind("/s/logs", "/w/logs", writable=True)],
        run_as=(65534, 65534),
    )
    binds = [argv[i + 1] for i, arg in enumerate(argv) if arg == "--bind"]
    assert binds == ["/s/harness:/opt/lmr-harness:ro", "/s/logs:/w/logs:rw"]
    assert argv[argv.index("--security") + 1] == "uid:65534,gid:65534"
    assert "--security" not in _argv()  # a user cannot choose; Apptainer runs the user


def test_gpus_come_with_nv_and_the_devices_named(monkeypatch: pytest.MonkeyPatch) -> None:
    argv = _argv(limits=Limits(gpus="device=1,3"))
    assert "--nv" in argv and "CUDA_VISIBLE_DEVICES=1,3" in argv
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "2")  # what Slurm gave the job
    assert "CUDA_VISIBLE_DEVICES=2" in _argv(limits=Limits(gpus="all"))
    assert "--nv" not in _argv()
    with pytest.raises(ApptainerRefused, match="number of GPUs"):
        _argv(limits=Limits(gpus="2"))


def test_the_wrapper_stages_the_nonce_then_execs_the_command_unchanged() -> None:
    command = ["python", "-I", "-S", "/opt/lmr-harness/supervise.py", '{"a": "$HOME"}']
    argv = wrapped(command)
    assert argv[:2] == ["/bin/sh", "-c"] and argv[3:] == ["lmr-wrapper", *command]
    script = argv[2]
    assert script.index(NONCE_FILE) < script.index(STARTED) < script.index('exec "$@"')
    assert script.startswith("umask 077")
