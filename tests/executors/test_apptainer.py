"""Apptainer command construction and the SIF cache (no Apptainer binary is run here:
none is installable on Debian 12; docs/cluster.md says what was not exercised)."""

from __future__ import annotations

from pathlib import Path

import pytest

from lmr_author.errors import UserError
from lmr_author.executors.apptainer import (
    ApptainerRefused,
    Bind,
    SifCache,
    build_command,
    exec_command,
)
from lmr_author.sandbox.results import Limits

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
    assert argv[:2] == ["apptainer", "exec"]
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
    assert envs == ["HOME=/tmp", "PYTHONPATH=/work/repo"]


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
        "build",
        "/c/x.sif",
        "docker-archive:///c/x.tar",
    ]


def test_the_cache_builds_once_per_image_id(tmp_path: Path) -> None:
    built: list[list[str]] = []

    def runner(argv: list[str]) -> None:
        built.append(argv)
        assert Path(argv[3].removeprefix("docker-archive://")).read_bytes() == b"tar"
        Path(argv[2]).write_bytes(b"SIF")

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
        Path(argv[2]).write_bytes(b"half")
        raise UserError("apptainer build failed")

    cache = SifCache(tmp_path, runner=runner)
    with pytest.raises(UserError):
        cache.ensure(IMAGE, lambda path: path.write_bytes(b"tar"))
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("bad", ["latest", "sha256:xyz", "sha256:" + "AB" * 32, "../x"])
def test_the_cache_takes_image_ids_only(tmp_path: Path, bad: str) -> None:
    with pytest.raises(UserError, match="not an image id"):
        SifCache(tmp_path).path_for(bad)
