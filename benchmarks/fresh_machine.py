"""Fresh-machine check: the README's two commands on a new Debian 12, exactly as written.

Makes a minimal Debian bookworm root file system with debootstrap (python3 only, so
PEP 668's EXTERNALLY-MANAGED marker is in place and there is neither pip nor venv),
imports it into Docker, puts a clean ``git clone`` of this repository (with the shared
folder beside it, as ../shared) into a container of it, and runs the two commands of
README.md's "Two commands for a fresh machine", read from README.md so the check stays
honest. The container talks to this machine's engine through its socket (so setup finds
an engine and starts none) and gets what an institution's machine would have: its CA
bundle and pip configuration (pip.conf, PIP_* variables, local wheel folders). Nothing
else is set: no PYTHONUNBUFFERED, no CI.

Prints how long each command took and whether it passed. Needs root, debootstrap and
a Docker engine; takes a while (about 15 minutes), so it is not part of .ci/run.

    python3 benchmarks/fresh_machine.py [--rebuild] [--keep]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
IMAGE = "lmr-author-fresh/debian:bookworm"
LABEL = "org.lmr-author.fresh-machine=1"
CA_BUNDLE = Path(os.environ.get("SSL_CERT_FILE", "/etc/ssl/certs/ca-certificates.crt"))
#: Where the institution's CA bundle and pip.conf land in the container.
CA_IN_CONTAINER = "/etc/ssl/institution-ca.crt"


def readme_commands() -> list[str]:
    """The shell commands of README.md's "Two commands for a fresh machine" section."""
    text = (REPO / "README.md").read_text()
    section = text.split("## Two commands for a fresh machine", 1)[1].split("\n## ", 1)[0]
    commands = re.findall(r"```sh\n(.*?)\n```", section, flags=re.S)
    if len(commands) != 2:
        sys.exit(f"expected two commands in README.md's section, found {len(commands)}")
    return [command.strip() for command in commands]


def shared_folder() -> Path:
    """../shared beside the repository (for a git worktree: beside its main checkout)."""
    common = subprocess.run(
        ["git", "-C", str(REPO), "rev-parse", "--path-format=absolute", "--git-common-dir"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    for candidate in (REPO.parent / "shared", Path(common).parent.parent / "shared"):
        if candidate.is_dir():
            return candidate
    sys.exit("no shared folder beside the repository (../shared)")


def apt_sources() -> str:
    """The machine's own deb822 apt sources (bookworm, -updates, -security)."""
    path = Path("/etc/apt/sources.list.d/debian.sources")
    if path.exists():
        return path.read_text()
    return (
        "Types: deb\nURIs: http://deb.debian.org/debian\n"
        "Suites: bookworm bookworm-updates\nComponents: main\n"
        "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg\n\n"
        "Types: deb\nURIs: http://deb.debian.org/debian-security\n"
        "Suites: bookworm-security\nComponents: main\n"
        "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg\n"
    )


def build_image(rebuild: bool) -> float:
    """Import a debootstrapped bookworm as IMAGE (kept between runs); returns seconds."""
    exists = subprocess.run(["docker", "image", "inspect", IMAGE], capture_output=True)
    if exists.returncode == 0 and not rebuild:
        print(f"fresh machine: reusing {IMAGE} (--rebuild makes it again)")
        return 0.0
    from lmr_author.sandbox.baseimage import apt_mirror

    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="lmr-fresh-") as name:
        rootfs = Path(name) / "rootfs"
        command = ["debootstrap", "--variant=minbase", "--include=python3,ca-certificates"]
        command += ["bookworm", str(rootfs)]
        mirror = apt_mirror()
        if mirror:
            command.append(mirror)
        print("fresh machine: debootstrap bookworm (minbase, python3)")
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        (rootfs / "etc/apt/sources.list").unlink(missing_ok=True)
        (rootfs / "etc/apt/sources.list.d/debian.sources").write_text(apt_sources())
        marker = rootfs / "usr/lib/python3.11/EXTERNALLY-MANAGED"
        assert marker.exists(), "Debian's python3 should carry the PEP 668 marker"
        tar = subprocess.Popen(["tar", "-C", str(rootfs), "-c", "."], stdout=subprocess.PIPE)
        subprocess.run(
            ["docker", "import", "--change", f"LABEL {LABEL}", "-", IMAGE],
            stdin=tar.stdout,
            check=True,
            stdout=subprocess.DEVNULL,
        )
        if tar.wait() != 0:
            sys.exit("tar of the root file system failed")
    return time.monotonic() - started


def pip_settings(work: Path) -> list[str]:
    """docker run options: the CA bundle, pip.conf and PIP_* of this machine."""
    conf = work / "pip.conf"
    lines = ["[global]", f"cert = {CA_IN_CONTAINER}"]
    options = ["-v", f"{CA_BUNDLE}:{CA_IN_CONTAINER}:ro", "-v", f"{conf}:/etc/pip.conf:ro"]
    for name in ("SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "PIP_CERT"):
        options += ["-e", f"{name}={CA_IN_CONTAINER}"]
    for name, value in os.environ.items():
        if name.startswith("PIP_") and name != "PIP_CERT":
            options += ["-e", f"{name}={value}"]
    wheels = Path("/opt/wheels")
    if wheels.is_dir():
        lines.append(f"find-links = {wheels}")
        options += ["-v", f"{wheels}:{wheels}:ro"]
    conf.write_text("\n".join(lines) + "\n")
    return options


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rebuild", action="store_true", help="debootstrap the image again")
    parser.add_argument("--keep", action="store_true", help="keep the container afterwards")
    args = parser.parse_args()
    if os.geteuid() != 0 or shutil.which("debootstrap") is None:
        sys.exit("needs root and debootstrap")
    commands = readme_commands()
    image_s = build_image(args.rebuild)

    work = Path(tempfile.mkdtemp(prefix="lmr-fresh-work-"))
    subprocess.run(
        ["git", "clone", "--quiet", str(REPO), str(work / "lmr-author")],
        check=True,
    )
    shutil.copytree(shared_folder(), work / "shared", symlinks=True)
    socket = "/var/run/docker.sock"
    container = subprocess.run(
        [
            *("docker", "run", "-d", "--label", LABEL, "-v", f"{socket}:{socket}"),
            *("-v", f"{work}:/src", "-w", "/src/lmr-author"),
            *pip_settings(work),
            *(IMAGE, "sleep", "infinity"),
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    results = []
    try:
        for command in commands:
            print(f"fresh machine: $ {command}", flush=True)
            started = time.monotonic()
            done = subprocess.run(["docker", "exec", container, "bash", "-c", command])
            results.append((command, time.monotonic() - started, done.returncode))
    finally:
        if not args.keep:
            subprocess.run(["docker", "rm", "-f", container], capture_output=True)
            # Files the container made belong to root; this script runs as root too.
            shutil.rmtree(work, ignore_errors=True)
    print(f"\nimage (debootstrap + import): {image_s:.0f} s")
    for command, seconds, code in results:
        verdict = "passed" if code == 0 else f"FAILED (exit {code})"
        print(f"{seconds:7.0f} s  {verdict}  {command}")
    return 0 if all(code == 0 for _, _, code in results) else 1


if __name__ == "__main__":
    sys.exit(main())
