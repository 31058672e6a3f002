"""The harness's first process in a test container (PID 1): it never runs candidate code.

It reads the run's nonce from a file only it can see and deletes it, makes itself
undumpable (so the test process cannot read its memory or its file descriptors through
/proc), then starts the test process (``runtest.py``) with a pipe for per-test records,
forwards the test's output to stderr with a cap, enforces the time limit and, as its
last act, writes one result line to stdout, which only it holds: ``@@lmr-harness@@
<nonce> <json>``. Files the candidate could have touched (the test's logs folder,
replay outputs) are read here with ``O_NOFOLLOW``, regular files only, within caps.

Started as root (Docker, Podman: with only the capabilities this needs), it starts the
test process as the test user (``user``). An isolated run that forks its candidate
(``isolate.fork``) first makes the tests private to the test user (`_lock_down`: the
candidate's user cannot read them) and gives each user a home of its own; the test
process forks the candidate's process and both drop to their users. The candidate's
output comes back on a pipe of its own, capped, after the test's. Standard library
only: it runs inside any task image.
"""

from __future__ import annotations

import json
import os
import secrets
import select
import signal
import stat
import subprocess
import sys
import time
from typing import Any

MARKER = "@@lmr-harness@@"
#: Bytes of the test's output forwarded at most (head), then a tail of ``OUTPUT_TAIL``.
OUTPUT_HEAD = 1 << 20
OUTPUT_TAIL = 64 << 10
#: Bytes of per-test records accepted from the test process.
REPORT_CAP = 4 << 20
#: Bytes of the test's log files read back (all of them together), and files at most.
LEGACY_CAP = 1 << 20
LOG_FILES_CAP = 32
#: Replay outputs: files and bytes at most.
OUTPUT_FILES_CAP = 1000
OUTPUT_BYTES_CAP = 8 << 20
#: Bytes of the candidate's process's output kept (its head).
CANDIDATE_OUTPUT_CAP = 64 << 10
#: The container's shared scratch folders, as an isolated run that forks leaves them:
#: writable by the test's user's group only (sticky), passable by others, or the test's.
SHARED_SCRATCH = (
    ("/tmp", 0o1771),
    ("/var/tmp", 0o1771),
    ("/run/lock", 0o1771),
    ("/dev/shm", 0o1770),
)


def main(argv: list[str]) -> int:
    options = json.loads(argv[1])
    hide_command_line()
    nonce = _take_nonce(str(options["nonce_file"]))
    _undumpable()
    # As PID 1 we get only the signals we handle: the test process cannot stop us.
    for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, signal.SIG_IGN)
    started = time.monotonic()
    result: dict[str, Any] = {"version": 1}
    # Records must carry a token the test process reads from a pipe at its start (before
    # any test code runs), so writing JSON to the report pipe blindly forges nothing.
    token = secrets.token_hex(16)
    report_r, report_w = os.pipe()
    token_r, token_w = os.pipe()
    out_r, out_w = os.pipe()
    os.write(token_w, token.encode("ascii"))
    os.close(token_w)
    test: dict[str, Any] = {**options["test"], "report_fd": report_w, "token_fd": token_r}
    user = test.get("user")
    isolate: dict[str, Any] = test.get("isolate") or {}
    forks = bool(isolate.get("fork"))
    passed = [report_w, token_r]
    candidate_r: int | None = None
    if forks:
        try:
            _lock_down(isolate, user)
            # The test's scratch folders are its user's (Podman's tmpfs option gives
            # them to the container's user, root here).
            for folder in (options.get("log_dir"), options.get("outputs_dir")):
                if folder and user is not None:
                    os.chown(str(folder), int(user[0]), int(user[1]))
                    os.chmod(str(folder), 0o700)
        except (OSError, ValueError, TypeError, KeyError) as error:
            result["harness_error"] = f"cannot keep the tests from the candidate: {error}"
            _finish(nonce, result)
            return 0
        candidate_r, candidate_w = os.pipe()
        test["isolate"] = {**isolate, "output_fd": candidate_w}
        passed.append(candidate_w)
    command = [
        sys.executable,
        "-I",
        os.path.join(os.path.dirname(os.path.abspath(__file__)), "runtest.py"),
        json.dumps(test),
    ]
    try:
        child = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=out_w,
            stderr=out_w,
            pass_fds=tuple(passed),
            cwd=str(options["cwd"]),
            start_new_session=True,  # the test process drops to its user itself
        )
    except OSError as error:
        result["harness_error"] = f"cannot start the test process: {error}"
        _finish(nonce, result)
        return 0
    for fd in (*passed, out_w):
        os.close(fd)
    deadline = started + float(options["timeout_s"])
    candidate = _Capped(CANDIDATE_OUTPUT_CAP)
    report, output, status, timed_out = _watch(
        child, report_r, out_r, deadline, candidate_r, candidate
    )
    if candidate.data:
        _write_all(2, b"\n--- output of the candidate's process ---\n" + bytes(candidate.data))
    result["exit_status"] = status
    result["timed_out"] = timed_out
    result["records"] = _records(report, token)
    result["report_overflow"] = len(report) >= REPORT_CAP
    result["output_cut"] = output.cut
    if forks and user is not None:
        # The test's folders are its user's (0700); read them with its rights, not root's.
        os.setegid(int(user[1]))
        os.seteuid(int(user[0]))
    log_dir = options.get("log_dir")
    if log_dir:
        result["legacy_log"] = read_log_dir(str(log_dir))
    outputs_dir = options.get("outputs_dir")
    if outputs_dir:
        result["outputs"] = read_outputs(str(outputs_dir))
    result["duration_s"] = round(time.monotonic() - started, 3)
    _finish(nonce, result)
    return 0


def _lock_down(isolate: dict[str, Any], user: list[int] | None) -> None:
    """Make the tests readable by the test user's group alone (folders 0750, files 0640:
    the candidate's user cannot read them, and nobody gains a write it did not have),
    and give each user its home."""
    if user is None:
        raise ValueError("no test user to give the tests to")
    uid, gid = int(user[0]), int(user[1])
    for path in isolate["private"]:
        try:
            info = os.lstat(path)
        except FileNotFoundError:
            continue
        if stat.S_ISLNK(info.st_mode):
            continue  # the image's own link: the folder or file it names is locked itself
        os.chown(path, -1, gid, follow_symlinks=False)
        os.chmod(path, 0o750 if stat.S_ISDIR(info.st_mode) else 0o640)
    # The harness is the tests' too: the candidate's process (forked with its half of it
    # loaded) has no reason to read it, nor to learn how the test's side is watched.
    harness = os.path.dirname(os.path.abspath(__file__))
    os.chown(harness, -1, gid)
    os.chmod(harness, 0o750)
    # The scratch both users would share: only the test's user may write there (group,
    # sticky), the candidate's may pass through to its own home, and /dev/shm is the
    # test's alone. So neither can leave there a file, folder or link for the other.
    for folder, mode in SHARED_SCRATCH:
        try:
            info = os.lstat(folder)
        except FileNotFoundError:
            continue
        if not stat.S_ISDIR(info.st_mode):
            raise ValueError(f"{folder} is not a folder")
        os.chown(folder, 0, gid, follow_symlinks=False)
        os.chmod(folder, mode)
    candidate = isolate["candidate"]
    homes = ((isolate["test_home"], uid, gid), (candidate["home"], *candidate["user"]))
    for home, owner, group in homes:
        # Each user's home and temporary folder (HOME, TMPDIR and the caches under it:
        # `runtest.private_env`), its own, made before either runs any code (inner
        # first: root here has no right to enter a folder it gave away).
        folders = (home, os.path.join(home, "tmp"))
        for folder in folders:
            os.mkdir(folder, 0o700)
        for folder in reversed(folders):
            os.chown(folder, int(owner), int(group))


class _Capped:
    """The head of a stream, up to ``cap`` bytes; the rest is read and dropped."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.data = bytearray()

    def feed(self, data: bytes) -> None:
        room = self.cap - len(self.data)
        if room > 0:
            self.data.extend(data[:room])


def _take_nonce(path: str) -> str:
    """The nonce, read and then deleted before any test code can run."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
        try:
            nonce = os.read(fd, 256).decode("ascii", "replace").strip()
        finally:
            os.close(fd)
        os.unlink(path)
    except OSError:
        nonce = ""
    return nonce


def hide_command_line() -> None:
    """Blank this process's command line (its options: the test's paths) where every
    process of the container reads it, /proc/PID/cmdline: setproctitle's way, writing
    over the argument strings the kernel shows (Python holds its own copies)."""
    try:
        import ctypes

        with open("/proc/self/stat", "rb") as handle:
            fields = handle.read().rsplit(b")", 1)[1].split()
        start, end = int(fields[45]), int(fields[46])  # arg_start, arg_end (48, 49)
        if 0 < start < end and end - start < (1 << 24):
            ctypes.memset(start, 0, end - start)
    except (OSError, ValueError, IndexError, AttributeError, ImportError):
        pass


def _undumpable() -> None:
    """PR_SET_DUMPABLE 0: same-user processes cannot read /proc/1/mem, fd or environ."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(4, 0, 0, 0, 0)
    except (OSError, AttributeError):
        pass


class _Output:
    """The test's output, forwarded to stderr: a head, then only a rolling tail."""

    def __init__(self) -> None:
        self.written = 0
        self.tail = b""
        self.cut = 0

    def feed(self, data: bytes) -> None:
        room = OUTPUT_HEAD - self.written
        if room > 0:
            head, data = data[:room], data[room:]
            _write_all(2, head)
            self.written += len(head)
        if data:
            self.cut += len(data)
            self.tail = (self.tail + data)[-OUTPUT_TAIL:]

    def close(self) -> None:
        if self.cut:
            self.cut -= len(self.tail)
            _write_all(2, f"\n[... {self.cut} bytes of output cut ...]\n".encode())
            _write_all(2, self.tail)


def _watch(
    child: subprocess.Popen[bytes],
    report_r: int,
    out_r: int,
    deadline: float,
    candidate_r: int | None = None,
    candidate: _Capped | None = None,
) -> tuple[bytes, _Output, int | None, bool]:
    """Read the pipes until the test process ends (or the time is up); then drain.

    The candidate's output is read as it comes (so that it never blocks on a full pipe)
    but never waited for: its process outlives the test's, until the container ends.
    """
    report = bytearray()
    output = _Output()
    status: int | None = None
    timed_out = False
    open_fds = {report_r, out_r}
    extra = {candidate_r} if candidate_r is not None else set()
    ended_at = 0.0
    while True:
        now = time.monotonic()
        if status is None:
            status = child.poll()
            ended_at = now
        if status is None and now >= deadline:
            timed_out = True
            _kill_group(child)
            status = child.wait()
            break
        # Once the test process has ended, what it left running gets a moment only.
        if status is not None and (not open_fds or now - ended_at > 0.5):
            break
        if not open_fds and not extra:
            time.sleep(0.01)
            continue
        ready, _, _ = select.select([*open_fds, *extra], [], [], 0.05)
        for fd in ready:
            data = os.read(fd, 65536)
            if fd in extra:
                if not data:
                    extra.discard(fd)
                elif candidate is not None:
                    candidate.feed(data)
            elif not data:
                open_fds.discard(fd)
            elif fd == report_r:
                if len(report) < REPORT_CAP:
                    report.extend(data[: REPORT_CAP - len(report)])
            else:
                output.feed(data)
    output.close()
    return bytes(report), output, status, timed_out


def _kill_group(child: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(child.pid, signal.SIGKILL)
    except OSError:
        child.kill()


def _records(report: bytes, token: str) -> list[Any]:
    """The records that carry the token; anything else is kept as "garbage" (forged)."""
    records: list[Any] = []
    prefix = token.encode("ascii") + b" "
    for line in report.split(b"\n"):
        if not line.strip():
            continue
        if not line.startswith(prefix):
            records.append({"event": "garbage", "size": len(line)})
            continue
        try:
            records.append(json.loads(line[len(prefix) :]))
        except ValueError:
            records.append({"event": "garbage", "size": len(line)})
    return records


def read_capped(path: str, cap: int) -> dict[str, Any]:
    """A file the candidate could have made: never followed, never special, never whole."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as error:
        if error.errno == 2:
            return {"missing": True}
        kind = "a symlink" if _is_link(path) else f"unreadable ({error.strerror})"
        return {"refused": f"it is {kind}"}
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return {"refused": "it is not a regular file"}
        data = os.read(fd, cap + 1)
    finally:
        os.close(fd)
    return {"text": data[:cap].decode("utf-8", "replace"), "truncated": len(data) > cap}


def read_log_dir(folder: str) -> dict[str, Any]:
    """Every log the test wrote in its (fresh, tmpfs) logs folder, as the published loop
    reads them: regular files only, never followed, within the caps. ``text`` is all of
    them in name order; one refused file refuses the whole folder (a candidate could
    hide a "Failed" line behind a FIFO or a symlink)."""
    try:
        entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
    except OSError:
        return {"missing": True}
    if not entries:
        return {"missing": True}
    if len(entries) > LOG_FILES_CAP:
        return {"refused": f"{len(entries)} files in the logs folder (at most {LOG_FILES_CAP})"}
    texts: list[str] = []
    total = 0
    for entry in entries:
        got = read_capped(os.path.join(folder, entry.name), LEGACY_CAP - total)
        if "refused" in got:
            return {"refused": f"{entry.name}: {got['refused']}"}
        if got.get("truncated"):
            return {"refused": f"the logs are larger than {LEGACY_CAP} bytes"}
        text = str(got.get("text", ""))
        total += len(text.encode("utf-8"))
        texts.append(text)
    return {"text": "\n".join(texts), "files": [entry.name for entry in entries]}


def _is_link(path: str) -> bool:
    try:
        return stat.S_ISLNK(os.lstat(path).st_mode)
    except OSError:
        return False


def read_outputs(folder: str) -> dict[str, Any]:
    """The replay outputs the test wrote: regular ``*.json`` files, within the caps."""
    files: dict[str, Any] = {}
    total = 0
    try:
        entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
    except OSError as error:
        return {"error": f"cannot list the outputs ({error.strerror})", "files": files}
    for entry in entries[:OUTPUT_FILES_CAP]:
        if not entry.name.endswith(".json"):
            continue
        got = read_capped(os.path.join(folder, entry.name), OUTPUT_BYTES_CAP - total)
        if "text" in got:
            total += len(got["text"])
        files[entry.name] = got
        if total >= OUTPUT_BYTES_CAP:
            return {"error": "the outputs are larger than the cap", "files": files}
    return {"files": files, "more": len(entries) > OUTPUT_FILES_CAP}


def _finish(nonce: str, result: dict[str, Any]) -> None:
    line = f"\n{MARKER} {nonce} {json.dumps(result, separators=(',', ':'))}\n"
    _write_all(1, line.encode("utf-8"))


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        try:
            written = os.write(fd, view)
        except InterruptedError:
            continue
        except OSError:
            return
        view = view[written:]


if __name__ == "__main__":
    sys.exit(main(sys.argv))
