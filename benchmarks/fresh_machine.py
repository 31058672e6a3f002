"""Fresh-machine check: the README's two commands on a new Debian 12 (or Ubuntu 24.04),
exactly as written, and what they leave on the machine.

Makes a minimal Debian bookworm root file system with debootstrap (the distribution's
own python3 only, Debian 12's 3.11.2, so PEP 668's EXTERNALLY-MANAGED marker is in
place and there is neither pip nor venv; with ``--systemd`` also systemd as init;
``--ubuntu URL``: Ubuntu 24.04 from the Ubuntu archive at URL, its python3 3.12),
imports it into Docker, puts a clean ``git
clone`` of this repository (with the shared folder beside it, as ../shared) into a
container of it, and runs the two commands of README.md's "Two commands for a fresh
machine" and then its undo command, all read from README.md so the check stays honest.
The container gets what an institution's machine would have: its CA bundle and pip
configuration (pip.conf, PIP_* variables, local wheel folders). Nothing else is set: no
PYTHONUNBUFFERED, no CI. By default it runs its own Docker engine, as the set-up
installs and starts it (the container gets the capabilities a machine's root has; its
/var/lib/docker and /var/lib/containers are volumes, as overlay cannot nest);
``--host-engine`` gives it this machine's engine through its socket instead.

Around the commands it looks at the container (its own network namespace, so what
listens there is what the commands started) and checks:

- before anything: python3 is the distribution's own (a file of one of its packages);
- after the main-job command: the demo printed what README.md expects (unit-test
  accuracy 100 %, 0 %, 0 %, read from its results.json), no TCP or UDP socket listens
  beyond loopback, no user was added, no unit or init script was enabled to start at
  boot;
- after the test command: every listening socket is on loopback, nothing enabled;
- after the undo command: the listening sockets, users, groups, processes, units and
  files are those of before the main-job command (apt's and dpkg's bookkeeping, logs
  and caches aside, listed), and /etc's files are unchanged.

``--systemd`` runs the container with systemd as PID 1 (the host's cgroup hierarchy
mounted read-write, ``--cgroupns=host``), so package scripts really enable and start
services, as on a Debian machine. ``--setup-only`` runs only the set-up part of the test
command (before its ``&&``), not the suite; ``--main-only`` runs the main-job command
and the undo command only.

The container's engine cannot pull from Docker Hub here, so the set-up builds the base
image offline. ``--pullable`` makes ``python:3.11-slim`` pullable instead, as on a
machine whose engine reaches a registry: this machine's own image of that name is
pushed into a registry (Debian's docker-registry) that listens on the container's
loopback, and the container's engine is configured with it as its registry mirror
(/etc/docker/daemon.json, written before the "before" snapshot, as an institution's
machine would have it).

Prints every line of the commands with the seconds since the command started, how
long each command took and every finding. Needs root, debootstrap and a Docker engine
(``--pullable``: docker-registry and nsenter too); takes a while (``--setup-only``:
about 15 minutes on a 2-core machine at load 10, the suite comes on top), so it is not
part of .ci/run.

    .venv/bin/python benchmarks/fresh_machine.py [--systemd] [--setup-only | --main-only]
                                        [--pullable] [--ubuntu URL [--ubuntu-keyring FILE]]
                                        [--host-engine] [--rebuild] [--keep]

(from the project's environment, `bash .ci/test-setup`: it reads lmr-author's apt
mirror setting)
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
IMAGE = "lmr-author-fresh"
#: What README.md says the demo prints: unit-test accuracy per sample system.
EXPECTED_ACCURACY = {"correct": 1.0, "subtle-bug": 0.0, "wrong-logic": 0.0}
#: The base image the task Dockerfiles name, and where the stand-in registry listens in
#: the container (its own network namespace: its loopback is its own).
BASE_IMAGE = "python:3.11-slim"
MIRROR_PORT = 5000
REGISTRY_CONFIG = """\
version: 0.1
log:
  level: error
storage:
  filesystem:
    rootdirectory: {root}
http:
  addr: 127.0.0.1:{port}
"""
LABEL = "org.lmr-author.fresh-machine=1"
CA_BUNDLE = Path(os.environ.get("SSL_CERT_FILE", "/etc/ssl/certs/ca-certificates.crt"))
#: Where the institution's CA bundle and pip.conf land in the container.
CA_IN_CONTAINER = "/etc/ssl/institution-ca.crt"
#: Capability names by bit (linux/capability.h), to ask for all this machine allows.
CAPABILITIES = (
    "CHOWN",
    "DAC_OVERRIDE",
    "DAC_READ_SEARCH",
    "FOWNER",
    "FSETID",
    "KILL",
    "SETGID",
    "SETUID",
    "SETPCAP",
    "LINUX_IMMUTABLE",
    "NET_BIND_SERVICE",
    "NET_BROADCAST",
    "NET_ADMIN",
    "NET_RAW",
    "IPC_LOCK",
    "IPC_OWNER",
    "SYS_MODULE",
    "SYS_RAWIO",
    "SYS_CHROOT",
    "SYS_PTRACE",
    "SYS_PACCT",
    "SYS_ADMIN",
    "SYS_BOOT",
    "SYS_NICE",
    "SYS_RESOURCE",
    "SYS_TIME",
    "SYS_TTY_CONFIG",
    "MKNOD",
    "LEASE",
    "AUDIT_WRITE",
    "AUDIT_CONTROL",
    "SETFCAP",
    "MAC_OVERRIDE",
    "MAC_ADMIN",
    "SYSLOG",
    "WAKE_ALARM",
    "BLOCK_SUSPEND",
    "AUDIT_READ",
    "PERFMON",
    "BPF",
    "CHECKPOINT_RESTORE",
)
#: What apt, dpkg, systemd and the commands' caches keep after an undo: listed, not
#: findings (and the "-" backups shadow's tools write beside /etc/passwd and the like).
BOOKKEEPING = (
    "/var/lib/apt/",
    "/var/cache/apt/",
    "/var/cache/debconf/",
    "/var/cache/ldconfig/",
    "/var/lib/dpkg/",
    "/var/lib/systemd/timers/",
    "/var/log/apt/",
    "/var/log/dpkg.log",
    "/var/log/alternatives.log",
    "/var/log/journal/",
    "/etc/ld.so.cache",
    "/root/.cache/",
    "/tmp/",
    "/var/tmp/",
)


def bookkeeping(path: str) -> bool:
    if path.startswith("/etc/") and path.endswith("-"):
        return True
    return any(path == kept.rstrip("/") or path.startswith(kept) for kept in BOOKKEEPING)


#: Runs inside the container (its python3): what a machine's owner would look at.
SNAPSHOT = r"""
import hashlib, json, os, socket, stat

def sockets():
    owners = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            comm = open(f"/proc/{pid}/comm").read().strip()
            for fd in os.listdir(f"/proc/{pid}/fd"):
                link = os.readlink(f"/proc/{pid}/fd/{fd}")
                if link.startswith("socket:["):
                    owners[link[8:-1]] = comm
        except OSError:
            pass
    found = set()
    for proto in ("tcp", "tcp6", "udp", "udp6"):
        try:
            rows = open(f"/proc/net/{proto}").read().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            if fields[3] != ("0A" if proto.startswith("tcp") else "07"):
                continue  # tcp: LISTEN only; udp: unconnected (bound) only
            address, port = fields[1].split(":")
            raw = bytes.fromhex(address)
            if len(raw) == 4:
                host = socket.inet_ntop(socket.AF_INET, raw[::-1])
            else:
                words = b"".join(raw[i : i + 4][::-1] for i in range(0, 16, 4))
                host = socket.inet_ntop(socket.AF_INET6, words)
            owner = owners.get(fields[9], "?")
            found.add(f"{proto[:3]} {host} {int(port, 16)} {owner}")
    return sorted(found)

def names(path):
    return sorted(line.split(":")[0] for line in open(path) if ":" in line)

def processes():
    found = set()
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            comm = open(f"/proc/{pid}/comm").read().strip()
            uid = os.stat(f"/proc/{pid}").st_uid
        except OSError:
            continue
        found.add(f"{comm} (uid {uid})")
    return sorted(found)

def boot_links():
    found = []
    for top in ("/etc/systemd/system", "/etc/systemd/user", "/etc/rc2.d", "/etc/rc3.d",
                "/etc/rc4.d", "/etc/rc5.d"):
        for folder, _dirs, files in os.walk(top):
            for name in files:
                path = os.path.join(folder, name)
                wanted = folder.endswith((".wants", ".requires", ".upholds"))
                if os.path.islink(path) and (wanted or name.startswith("S")):
                    found.append(path)
    return sorted(found)

def files():
    root = os.stat("/").st_dev
    found, etc = [], {}
    for folder, dirs, names_ in os.walk("/"):
        dirs[:] = [d for d in dirs if os.lstat(os.path.join(folder, d)).st_dev == root
                   and os.path.join(folder, d) not in ("/proc", "/sys", "/dev", "/src")]
        for name in dirs + names_:
            path = os.path.join(folder, name)
            found.append(path)
            if path.startswith("/etc/") and name in names_:
                mode = os.lstat(path).st_mode
                if stat.S_ISREG(mode):
                    try:
                        etc[path] = hashlib.sha256(open(path, "rb").read()).hexdigest()
                    except OSError:
                        pass
    return sorted(found), etc

listing, etc = files()
print(json.dumps({
    "sockets": sockets(), "users": names("/etc/passwd"), "groups": names("/etc/group"),
    "processes": processes(), "boot_links": boot_links(), "files": listing, "etc": etc,
}))
"""


def readme_commands() -> tuple[list[str], str]:
    """The two commands of README.md's "Two commands for a fresh machine" section, and
    the undo command README.md gives (the first ``sh`` block that runs .ci/undo)."""
    text = (REPO / "README.md").read_text()
    section = text.split("## Two commands for a fresh machine", 1)[1].split("\n## ", 1)[0]
    commands = re.findall(r"```sh\n(.*?)\n```", section, flags=re.S)
    if len(commands) != 2:
        sys.exit(f"expected two commands in README.md's section, found {len(commands)}")
    blocks = re.findall(r"```sh\n(.*?)\n```", text, flags=re.S)
    undo = [block.strip() for block in blocks if ".ci/undo" in block]
    if not undo:
        sys.exit("README.md gives no command that runs .ci/undo")
    return [command.strip() for command in commands], undo[0]


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


@dataclass(frozen=True)
class System:
    """The distribution a fresh machine runs, as debootstrap makes it."""

    name: str
    suite: str
    mirror: str | None
    sources: str  # its apt sources (deb822), as a machine of it has them
    keyring: Path | None = None
    script: str | None = None  # debootstrap's script, when it has none of that name
    include: tuple[str, ...] = ("python3", "ca-certificates")


def debian() -> System:
    """Debian 12 from this machine's own mirror and sources (bookworm, -updates, -security)."""
    from lmr_author.images.base_image import apt_mirror

    path = Path("/etc/apt/sources.list.d/debian.sources")
    if not path.exists():
        sys.exit(f"needs {path} (this machine's Debian sources) to give the container")
    return System("debian", "bookworm", apt_mirror(), path.read_text())


def ubuntu(mirror: str, keyring: Path | None) -> System:
    """Ubuntu 24.04 from the archive at ``mirror``, with the components a server has."""
    sources = (
        f"Types: deb\nURIs: {mirror}\nSuites: noble noble-updates noble-security\n"
        "Components: main restricted universe multiverse\n"
        "Signed-By: /usr/share/keyrings/ubuntu-archive-keyring.gpg\n"
    )
    scripts = Path("/usr/share/debootstrap/scripts")
    script = None if (scripts / "noble").exists() else str(scripts / "gutsy")  # all Ubuntus
    return System(
        "ubuntu",
        "noble",
        mirror,
        sources,
        keyring,
        script,
        ("python3", "ca-certificates", "ubuntu-keyring"),
    )


def build_image(system: System, tag: str, systemd: bool, rebuild: bool) -> float:
    """Import a debootstrapped ``system`` as ``tag`` (kept between runs); returns seconds."""
    exists = subprocess.run(["docker", "image", "inspect", tag], capture_output=True)
    if exists.returncode == 0 and not rebuild:
        print(f"fresh machine: reusing {tag} (--rebuild makes it again)")
        return 0.0
    started = time.monotonic()
    include = ",".join(system.include) + (",systemd,systemd-sysv" if systemd else "")
    with tempfile.TemporaryDirectory(prefix="lmr-fresh-") as name:
        rootfs = Path(name) / "rootfs"
        command = ["debootstrap", "--variant=minbase", f"--include={include}"]
        if system.keyring:
            command.append(f"--keyring={system.keyring}")
        elif system.name != "debian":
            # Debian 12 has no Ubuntu keyring: this first download goes unchecked (the
            # container's apt checks what it installs later with the keyring it got).
            print("fresh machine: no --ubuntu-keyring: the Ubuntu archive is not checked")
            command.append("--no-check-gpg")
        command += [system.suite, str(rootfs)]
        if system.mirror:
            command.append(system.mirror)
        if system.script:
            command.append(system.script)
        print(f"fresh machine: debootstrap {system.suite} (minbase, {include})")
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        (rootfs / "etc/apt/sources.list").unlink(missing_ok=True)
        (rootfs / f"etc/apt/sources.list.d/{system.name}.sources").write_text(system.sources)
        markers = list(rootfs.glob("usr/lib/python3*/EXTERNALLY-MANAGED"))
        assert markers, f"{system.name}'s python3 should carry the PEP 668 marker"
        tar = subprocess.Popen(["tar", "-C", str(rootfs), "-c", "."], stdout=subprocess.PIPE)
        subprocess.run(
            ["docker", "import", "--change", f"LABEL {LABEL}", "-", tag],
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


def machine_options() -> list[str]:
    """What a machine's root has: all capabilities this engine may give (``--privileged``
    where it may give them all), no seccomp or AppArmor filter, the cgroup hierarchy."""
    bounding = int(
        re.search(r"CapBnd:\s*([0-9a-f]+)", Path("/proc/self/status").read_text()).group(1),  # type: ignore[union-attr]
        16,
    )
    missing = [name for bit, name in enumerate(CAPABILITIES) if not bounding >> bit & 1]
    options = ["--privileged"]
    if missing:  # --privileged asks for every capability: runc refuses what it lacks
        options = ["--cap-add", "ALL"]
        for name in missing:
            options += ["--cap-drop", name]
        options += ["--security-opt", "seccomp=unconfined", "--security-opt", "apparmor=unconfined"]
        # /proc/sys writable, as --privileged has it: an engine newer than Debian 12's
        # (Ubuntu 24.04's) sets its containers' IPv6 there, and fails on a read-only one.
        options += ["--security-opt", "systempaths=unconfined"]
        for device in ("/dev/fuse", "/dev/loop-control"):
            if Path(device).exists():
                options += ["--device", device]
    options += ["--cgroupns=host", "-v", "/sys/fs/cgroup:/sys/fs/cgroup:rw"]
    return options


def snapshot(container: str) -> dict[str, Any]:
    done = subprocess.run(
        ["docker", "exec", container, "python3", "-c", SNAPSHOT],
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def loopback(entry: str) -> bool:
    host = entry.split()[1]
    return host.startswith("127.") or host in ("::1",) or host.startswith("::ffff:127.")


def added(before: dict[str, Any], after: dict[str, Any], key: str) -> list[str]:
    return sorted(set(after[key]) - set(before[key]))


def check_main(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """Findings after the main-job command."""
    found = [f"listens beyond loopback: {s}" for s in after["sockets"] if not loopback(s)]
    found += [f"user added: {name}" for name in added(before, after, "users")]
    found += [f"enabled at boot: {link}" for link in added(before, after, "boot_links")]
    return found


def check_tests(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """Findings after the test command."""
    found = [f"listens beyond loopback: {s}" for s in after["sockets"] if not loopback(s)]
    found += [f"enabled at boot: {link}" for link in added(before, after, "boot_links")]
    return found


def check_undo(before: dict[str, Any], after: dict[str, Any]) -> tuple[list[str], list[str]]:
    """Findings after the undo command, and the bookkeeping files it rightly kept."""
    found: list[str] = []
    for key, what in (
        ("sockets", "still listening"),
        ("users", "user left"),
        ("groups", "group left"),
        ("processes", "process left"),
        ("boot_links", "still enabled"),
    ):
        found += [f"{what}: {value}" for value in added(before, after, key)]
        if key != "processes":  # one that ran then and ended since is no finding
            found += [f"gone since before: {value}" for value in added(after, before, key)]
    new_files = added(before, after, "files")
    kept = [path for path in new_files if bookkeeping(path)]
    found += [f"file left: {path}" for path in new_files if path not in kept]
    gone = added(after, before, "files")
    found += [f"file removed: {path}" for path in gone if not bookkeeping(path)]
    for path, digest in sorted(before["etc"].items()):
        if path in after["etc"] and after["etc"][path] != digest and not bookkeeping(path):
            found.append(f"changed: {path}")
    return found, kept


def summary(label: str, before: dict[str, Any], after: dict[str, Any]) -> None:
    print(f"fresh machine: after {label}")
    for entry in after["sockets"]:
        print(f"    listening: {entry}")
    for key in ("users", "groups"):
        new = added(before, after, key)
        if new:
            print(f"    {key} added: {' '.join(new)}")


def run(container: str, command: str) -> tuple[float, int]:
    """Runs ``command`` in the container, each line of its output printed with the
    seconds since it started (where the time goes)."""
    print(f"fresh machine: $ {command}", flush=True)
    started = time.monotonic()
    process = subprocess.Popen(
        ["docker", "exec", container, "bash", "-c", command],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        errors="replace",
    )
    assert process.stdout is not None
    for line in process.stdout:
        print(f"[{time.monotonic() - started:6.0f} s] {line.rstrip()}", flush=True)
    return time.monotonic() - started, process.wait()


def own_python(container: str) -> tuple[str, list[str]]:
    """The container's python3 (version, path) and findings unless it is the
    distribution's own: the file of one of its packages, first on PATH."""
    done = subprocess.run(
        [
            "docker",
            "exec",
            container,
            "sh",
            "-c",
            'p="$(command -v python3)"; python3 -c "import sys; print(sys.version.split()[0])"; '
            'echo "$p"; dpkg -S "$(readlink -f "$p")"',
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    lines = done.stdout.splitlines()
    if done.returncode != 0 or len(lines) < 3:
        return "?", [f"python3 is not a file of the distribution's packages: {done.stdout}"]
    version, path, owner = lines[0], lines[1], lines[2].split(":")[0]
    found = [] if path == "/usr/bin/python3" else [f"python3 first on PATH is {path}"]
    return f"python3 {version} ({path}, package {owner})", found


def demo_accuracy(container: str, command: str) -> tuple[str, list[str]]:
    """Unit-test accuracy per system from the demo's results.json, and findings unless
    they are README.md's expected 100 %, 0 %, 0 %."""
    output = re.search(r"--output\s+(\S+)", command)
    path = f"{output.group(1) if output else 'lmr-results'}/results.json"
    done = subprocess.run(
        ["docker", "exec", container, "cat", path], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        return "no results", [f"the demo wrote no {path}"]
    systems = json.loads(done.stdout).get("systems", {})
    got = {name: systems.get(name, {}).get("accuracy") for name in EXPECTED_ACCURACY}
    said = ", ".join(
        f"{name} {'?' if value is None else f'{value:.0%}'}" for name, value in got.items()
    )
    found = [] if got == EXPECTED_ACCURACY else [f"demo accuracy {said}, not 100 %, 0 %, 0 %"]
    return said, found


def registry_ready(url: str, alive: Callable[[], bool]) -> None:
    for _ in range(150):
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except OSError:
            if not alive():
                sys.exit(f"the registry at {url} did not start")
            time.sleep(0.2)
    sys.exit(f"the registry at {url} did not answer")


def stand_in_registry(container: str, root: Path) -> subprocess.Popen[bytes]:
    """A registry on the container's loopback serving this machine's BASE_IMAGE, and the
    container's engine configured to use it as its mirror of Docker Hub."""
    program = shutil.which("docker-registry") or shutil.which("registry")
    if program is None or shutil.which("nsenter") is None:
        sys.exit("--pullable needs docker-registry and nsenter")
    # First on this machine's loopback, where this machine's engine can push to it.
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    (root / "push.yml").write_text(REGISTRY_CONFIG.format(root=root / "data", port=port))
    log = (root / "registry.log").open("ab")  # its access log: not for this output
    pusher = subprocess.Popen([program, "serve", str(root / "push.yml")], stdout=log, stderr=log)
    try:
        registry_ready(f"http://127.0.0.1:{port}/v2/", lambda: pusher.poll() is None)
        name = f"127.0.0.1:{port}/library/{BASE_IMAGE}"
        subprocess.run(["docker", "tag", BASE_IMAGE, name], check=True)
        subprocess.run(["docker", "push", "-q", name], check=True, stdout=subprocess.DEVNULL)
        subprocess.run(["docker", "rmi", name], check=True, stdout=subprocess.DEVNULL)
    finally:
        pusher.terminate()
        pusher.wait()
    # Then the same store, served in the container's network namespace.
    config = root / "serve.yml"
    config.write_text(REGISTRY_CONFIG.format(root=root / "data", port=MIRROR_PORT))
    pid = subprocess.run(
        ["docker", "inspect", "-f", "{{.State.Pid}}", container],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    server = subprocess.Popen(
        ["nsenter", "-t", pid, "-n", program, "serve", str(config)], stdout=log, stderr=log
    )
    probe_script = (
        "import time, urllib.request\n"
        "for _ in range(150):\n"
        "    try:\n"
        f"        urllib.request.urlopen('http://127.0.0.1:{MIRROR_PORT}/v2/', timeout=2); break\n"
        "    except OSError: time.sleep(0.2)\n"
        "else: raise SystemExit('the stand-in registry did not answer')\n"
    )
    subprocess.run(["docker", "exec", container, "python3", "-c", probe_script], check=True)
    mirror = json.dumps({"registry-mirrors": [f"http://127.0.0.1:{MIRROR_PORT}"]})
    subprocess.run(
        [
            "docker",
            "exec",
            container,
            "sh",
            "-c",
            f"mkdir -p /etc/docker && echo '{mirror}' >/etc/docker/daemon.json",
        ],
        check=True,
    )
    image_id = subprocess.run(
        ["docker", "image", "inspect", "-f", "{{.Id}}", BASE_IMAGE],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    print(
        f"fresh machine: {BASE_IMAGE} ({image_id[:19]}) pullable through the container's"
        f" registry mirror http://127.0.0.1:{MIRROR_PORT}"
    )
    return server


def start_container(args: argparse.Namespace, image: str, work: Path) -> str:
    options = ["--label", LABEL, "--hostname", "lmr-fresh"]
    options += ["-v", f"{work}:/src", "-w", "/src/lmr-author", *pip_settings(work)]
    if args.host_engine:
        engine_socket = "/var/run/docker.sock"
        options += ["-v", f"{engine_socket}:{engine_socket}"]
    else:
        options += machine_options()
        # overlay cannot nest: the engines' stores are volumes (removed with the container)
        options += ["-v", "/var/lib/docker", "-v", "/var/lib/containers"]
    command = ["--init", image, "sleep", "infinity"]  # an init that reaps, as machines have
    if args.systemd:
        if args.host_engine:
            options += machine_options()
        options += ["--tmpfs", "/run", "--tmpfs", "/run/lock"]
        command = [image, "/sbin/init"]
    container = subprocess.run(
        ["docker", "run", "-d", *options, *command],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    if args.systemd:  # wait until systemd has booted its units
        subprocess.run(
            ["docker", "exec", container, "systemctl", "is-system-running", "--wait"],
            capture_output=True,
            timeout=300,
        )
    return container


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systemd", action="store_true", help="systemd as PID 1")
    only = parser.add_mutually_exclusive_group()
    only.add_argument(
        "--setup-only", action="store_true", help="run only the test command's set-up part"
    )
    only.add_argument(
        "--main-only", action="store_true", help="run only the main-job and undo commands"
    )
    parser.add_argument(
        "--pullable",
        action="store_true",
        help=f"make {BASE_IMAGE} pullable (a registry mirror on the container's loopback)",
    )
    parser.add_argument(
        "--ubuntu", metavar="URL", help="Ubuntu 24.04 from the Ubuntu archive at URL"
    )
    parser.add_argument(
        "--ubuntu-keyring", type=Path, metavar="FILE", help="check that archive with FILE"
    )
    parser.add_argument(
        "--host-engine", action="store_true", help="use this machine's Docker engine"
    )
    parser.add_argument("--rebuild", action="store_true", help="debootstrap the image again")
    parser.add_argument("--keep", action="store_true", help="keep the container afterwards")
    args = parser.parse_args()
    if os.geteuid() != 0 or shutil.which("debootstrap") is None:
        sys.exit("needs root and debootstrap")
    if args.pullable and args.host_engine:
        sys.exit("--pullable configures the container's own engine: not with --host-engine")
    (main_job, tests), undo = readme_commands()
    if args.setup_only:
        tests = tests.split("&&", 1)[0].strip()
    system = ubuntu(args.ubuntu, args.ubuntu_keyring) if args.ubuntu else debian()
    image = f"{IMAGE}/{system.name}:{system.suite}" + ("-systemd" if args.systemd else "")
    image_s = build_image(system, image, args.systemd, args.rebuild)

    work = Path(tempfile.mkdtemp(prefix="lmr-fresh-work-"))
    subprocess.run(["git", "clone", "--quiet", str(REPO), str(work / "lmr-author")], check=True)
    shutil.copytree(shared_folder(), work / "shared", symlinks=True)
    container = start_container(args, image, work)
    registry_root = Path(tempfile.mkdtemp(prefix="lmr-fresh-registry-"))
    registry: subprocess.Popen[bytes] | None = None
    results: list[tuple[str, float, int, list[str]]] = []
    kept: list[str] = []
    python, python_findings = own_python(container)
    demo = "not run"
    try:
        if args.pullable:
            registry = stand_in_registry(container, registry_root)
        before = snapshot(container)
        seconds, code = run(container, main_job)
        after_main = snapshot(container)
        summary("the main-job command", before, after_main)
        demo, demo_findings = demo_accuracy(container, main_job)
        findings = python_findings + demo_findings + check_main(before, after_main)
        results.append((main_job, seconds, code, findings))
        if not args.main_only:
            seconds, code = run(container, tests)
            after_tests = snapshot(container)
            summary("the test command", before, after_tests)
            results.append((tests, seconds, code, check_tests(before, after_tests)))
        seconds, code = run(container, undo)
        after_undo = snapshot(container)
        findings, kept = check_undo(before, after_undo)
        results.append((undo, seconds, code, findings))
    finally:
        if registry is not None:
            registry.terminate()
            registry.wait()
        shutil.rmtree(registry_root, ignore_errors=True)
        if not args.keep:
            subprocess.run(["docker", "rm", "-f", "-v", container], capture_output=True)
            # Files the container made belong to root; this script runs as root too.
            shutil.rmtree(work, ignore_errors=True)
        else:
            print(f"fresh machine: kept the container {container[:12]} and {work}")
    mode = "systemd as PID 1" if args.systemd else "no init system"
    engine = "this machine's engine" if args.host_engine else "its own engine"
    base = f"{BASE_IMAGE} pullable" if args.pullable else f"{BASE_IMAGE} not pullable"
    print(f"\nfresh machine ({system.name} {system.suite}, {mode}, {engine}, {base})")
    print(f"{python}; load when done: {' '.join(Path('/proc/loadavg').read_text().split()[:3])}")
    print(f"image (debootstrap + import): {image_s:.0f} s")
    print(f"demo (unit-test accuracy): {demo}")
    for command, seconds, code, findings in results:
        verdict = "passed" if code == 0 else f"FAILED (exit {code})"
        print(f"{seconds:7.0f} s  {verdict}  {command}")
        for finding in findings:
            print(f"           {finding}")
    if kept:
        folders = sorted({"/".join(path.split("/")[:4]) for path in kept})
        print(f"kept after undo (apt/dpkg bookkeeping, logs, caches): {' '.join(folders)}")
    ok = all(code == 0 and not findings for _, _, code, findings in results)
    return 0 if ok and len(results) == (2 if args.main_only else 3) else 1


if __name__ == "__main__":
    sys.exit(main())
