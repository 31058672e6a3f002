"""Many candidates of one implementation in one container: for mutants, never for hostile code.

A mutation test runs the task's tests on tens of mutants of the golden goal function,
which we made: nothing in them is written to forge a verdict. So they need not pay for a
container and an import of torch each. One container takes a batch of runs ("slots":
a mutant and one test file); its supervisor (``supervise.py``, root, PID 1) locks the
tests down once, as for one run, and starts a *zygote*: a test process (``runtest.py``)
that loads the libraries test and candidate share (torch, NumPy: the imports a normal
test process makes before it forks its candidate) and then only forks. For each slot:

* the supervisor kills whatever the last slot left running and empties every folder a
  run may write (the scratch folders, the logs and outputs folders, both homes), so a
  slot starts from what a fresh container gives;
* the zygote forks the slot's test process (twice, so that it is the supervisor's
  child, which waits on it and kills its group at the time limit), which runs exactly
  as a normal test process from the point where it forks the candidate's process: both
  drop to their users, the candidate's source is the slot's own file;
* the supervisor watches it as it watches one run (time limit, records with the slot's
  token, output caps), reads back its logs and outputs, and writes the slot's result
  line with the slot's own nonce (stdout) and its output between lines that name the
  nonce (stderr).

The first slot's test process also tells which modules of the shared libraries it
imported after its fork (`runtest._tell_late_imports`: ``torch._dynamo``, which an
optimizer's ``zero_grad`` imports, costs more than torch). A *warm* child of the zygote
imports them as the test's user and forks the later slots' test processes; their
candidates' processes are forked by the zygote itself (the shared libraries only, as a
normal run's candidate has them) and handed to the test process by pid, the supervisor
being their parent: one that ends before its test process does is not this batch's to
describe (the proxy learns how a process ended only as its parent).

What differs from a normal run, and how the verdict stays the same: a slot's time
starts at its fork, so its limit is shortened by what the zygote's start took (the part
of a normal run's clock a slot does not pay again); whether the memory limit killed the
slot is read from the container's cgroup counter around the slot (the engine's flag is
the whole container's); the slot's processes are the first the kernel kills for memory
(``oom_score_adj``), so the zygote survives a slot's excess; NumPy's global generator is
seeded afresh in each slot, as a new process would be (Python's own reseeds at fork);
a later slot's test process has the first's late imports before its test starts.
The host (`lmr_author.sandbox.batch`) runs again, one container each, every slot whose
result is missing or that a memory kill decided.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import stat
import subprocess
import sys
import time

# Annotations only (``typing`` costs an import in every test process).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: Lines around a slot's output on stderr: ``@@lmr-batch@@ <nonce> begin|end``.
OUTPUT_MARK = "@@lmr-batch@@"
#: Seconds the zygote may take to fork a slot before the batch is given up.
_FORK_WAIT_S = 60.0
#: Of a slot's time limit, what the zygote's start may take off at most.
_CREDIT_SHARE = 0.5


def supervise(options: dict[str, Any], stamps: dict[str, float], sup: Any) -> int:
    """The supervisor's side (``sup`` is ``supervise.py``): run every slot of the batch
    named by ``options["batch_file"]`` and write each slot's result."""
    with open(str(options["batch_file"]), "rb") as handle:
        batch = json.loads(handle.read())
    os.unlink(str(options["batch_file"]))
    slots: list[dict[str, Any]] = batch["slots"]
    nonces = _take_nonces(str(options["nonce_file"]), len(slots))
    sup._undumpable()
    for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, signal.SIG_IGN)
    begun = time.monotonic()
    first = slots[0]["test"]
    user = first.get("user")
    isolate = first.get("isolate") or {}
    tail = int(batch["output_tail"])
    try:
        if not isolate.get("fork") or user is None:
            raise ValueError("a batch runs forked candidates only")
        sup._lock_down(isolate, user)
        _fresh(sup, isolate, user, slots)
    except (OSError, ValueError, TypeError, KeyError) as error:
        for nonce in nonces:
            sup._finish(nonce, {"version": 1, "batch_lost": f"cannot set the batch up: {error}"})
        return 0
    stamps["locked"] = time.time()
    zygote = _start_zygote(options, isolate, user)
    stamps["zygote"] = time.time()
    credit = min(time.monotonic() - begun, _CREDIT_SHARE * float(options["timeout_s"]))
    tester = zygote  # forks the test processes: the zygote, or its warm child
    for index, slot in enumerate(slots):
        nonce = nonces[index]
        result: dict[str, Any] = {"version": 1}
        slot_stamps = {"slot": time.time(), "warm": float(tester is not zygote)}
        output = bytearray(zygote.output)
        if tester is not zygote:
            output += tester.output  # what the warm child's imports said
        learn: list[int] = []  # the first test process tells what it imported late
        try:
            if zygote.lost or tester.lost:
                raise _Lost(zygote.lost or tester.lost)
            _between({zygote.pid, tester.pid})
            _fresh(sup, isolate, user, [slot])
            oom_before = _oom_kills()
            started = time.monotonic()
            pipes = sup._Pipes()
            test = pipes.test_options(slot["test"])
            fds = {"out": pipes.out_w, "report": pipes.report_w, "token": pipes.token_r}
            candidate = None
            if tester is zygote:
                fds["candidate"] = test["isolate"]["output_fd"]
                if index == 0:
                    learn = list(os.pipe())
                    fds["learn"] = learn[1]
            else:
                # The candidate's process from the zygote (the shared libraries only),
                # the test's from its warm child (and what the first test imported).
                try:
                    candidate = zygote.fork_candidate(test["isolate"], pipes.candidate_w)
                except _Lost:
                    pipes.close_child_ends()
                    raise
                test["isolate"] = {**test["isolate"], "candidate_pid": candidate}
                del test["isolate"]["output_fd"]
            child = tester.fork(test, fds, pipes)
            if learn:
                os.close(learn.pop())  # the test process holds the writing end
            slot_stamps["spawned"] = time.time()
            deadline = started + float(options["timeout_s"]) - credit
            sup._watch_and_read(
                child, pipes, deadline, slot, user, result, slot_stamps, output.extend
            )
            if candidate is not None and _ended(candidate):
                # Not the test process's child: the proxy cannot tell how it ended, a
                # normal run can.
                raise _Lost("the candidate's process ended before the test's")
            _between({zygote.pid, tester.pid})
            result["oom_killed"] = _oom_kills() > oom_before
            result["duration_s"] = round(time.monotonic() - started, 3)
            if learn:
                names = _read_names(learn[0])
                if names:
                    tester = zygote.warm(names, str(slot["test"]["test_file"]), user)
        except _Lost as lost:
            result = {"version": 1, "batch_lost": str(lost)}
        except OSError as error:  # a folder not emptied: no slot after this one is fresh
            zygote.lost = f"cannot make the next slot fresh: {error}"
            result = {"version": 1, "batch_lost": zygote.lost}
        finally:
            for fd in learn:
                os.close(fd)
        slot_stamps["read back"] = time.time()
        result["stamps"] = slot_stamps
        _write_output(sup, nonce, bytes(output), tail)
        sup._finish(nonce, result)
    return 0


class _Lost(Exception):
    """The batch cannot go on (its zygote ended): the rest runs apart, on the host's say."""


def _ended(pid: int) -> bool:
    """Whether this process's child ``pid`` has ended (it is reaped then)."""
    try:
        done, _ = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return bool(done)


def _read_names(fd: int) -> list[str]:
    """The module names the first test process wrote (JSON), or none."""
    data = b""
    while select.select([fd], [], [], 0)[0]:
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        data += chunk
    try:
        names = json.loads(data or b"[]")
    except ValueError:
        return []
    return (
        [name for name in names if isinstance(name, str)][:5000] if isinstance(names, list) else []
    )


class _Forker:
    """A zygote the supervisor talks to: messages (with descriptors) on a socket, its
    answers (a pid, "ready") on a pipe."""

    def __init__(self, go: Any, said_r: int, pid: int = -1) -> None:
        self.go = go
        self.said_r = said_r
        self.pid = pid
        self.lost = ""
        self.output = b""

    def _ask(self, message: dict[str, Any], fds: dict[str, int]) -> str:
        import array
        import socket

        names = list(fds)
        data = json.dumps({**message, "fds": names}).encode()
        rights = array.array("i", [fds[name] for name in names]).tobytes()
        try:
            self.go.sendmsg([data], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, rights)])
        except OSError as error:
            self.lost = f"the batch's test process is gone ({error})"
            raise _Lost(self.lost) from None
        return self._read_line()

    def _read_line(self, out_r: int = -1, wait: float = _FORK_WAIT_S) -> str:
        """The next line on the answer pipe within ``wait`` seconds (the zygote's output
        read meanwhile, until it ends)."""
        line = b""
        deadline = time.monotonic() + wait
        watched = [self.said_r] + ([out_r] if out_r >= 0 else [])
        while not line.endswith(b"\n"):
            if time.monotonic() > deadline:
                return "no answer"
            ready, _, _ = select.select(watched, [], [], 0.1)
            for fd in ready:
                data = os.read(fd, 65536)
                if fd == self.said_r:
                    if not data:
                        return ""
                    line += data
                elif not data:
                    watched.remove(fd)
                elif len(self.output) < 65536:
                    self.output += data[: 65536 - len(self.output)]
        if out_r >= 0 and out_r in watched:
            while select.select([out_r], [], [], 0)[0]:  # what it wrote before its answer
                data = os.read(out_r, 65536)
                if not data:
                    break
                if len(self.output) < 65536:
                    self.output += data[: 65536 - len(self.output)]
        return line.decode("ascii", "replace").strip()

    def _pid(self, said: str, what: str) -> int:
        if not said.isdigit():
            self.lost = f"the batch's test process could not fork {what} ({said or 'it ended'})"
            raise _Lost(self.lost)
        return int(said)

    def fork(self, test: dict[str, Any], fds: dict[str, int], pipes: Any) -> _Slot:
        """Fork a slot's test process with ``fds`` (output, records, token, and the
        candidate's output or the imports to learn): the zygote answers its pid."""
        try:
            said = self._ask({"kind": "test", "test": test}, fds)
        finally:
            pipes.close_child_ends()
        return _Slot(self._pid(said, "a slot"))

    def fork_candidate(self, isolate: dict[str, Any], output: int | None) -> int:
        """Fork a slot's candidate's process (the supervisor's child) on ``output``."""
        assert output is not None
        said = self._ask({"kind": "candidate", "candidate": isolate["candidate"]}, {"out": output})
        return self._pid(said, "a candidate's process")

    def warm(self, names: list[str], test_file: str, user: Any) -> _Forker:
        """The zygote's child that also imports ``names`` (what the first test process
        imported of the shared libraries) and forks the test processes from then on."""
        import socket

        go, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        said_r, said_w = os.pipe()
        out_r, out_w = os.pipe()
        message = {"kind": "warm", "names": names, "test_file": test_file, "user": user}
        try:
            said = self._ask(message, {"go": theirs.fileno(), "said": said_w, "out": out_w})
        finally:
            theirs.close()
            os.close(said_w)
            os.close(out_w)
        warm = _Forker(go, said_r, self._pid(said, "its warm child"))
        ready = warm._read_line(out_r, max(_FORK_WAIT_S, 10.0 * len(names)))
        os.close(out_r)
        if ready != "ready":
            warm.lost = f"the batch's warm test process did not start ({ready or 'it ended'})"
        return warm


def _start_zygote(options: dict[str, Any], isolate: dict[str, Any], user: Any) -> _Forker:
    """Start the zygote: a test process that loads the shared libraries and forks."""
    import socket

    go, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    said_r, said_w = os.pipe()
    out_r, out_w = os.pipe()
    zygote = _Forker(go, said_r)
    message = {
        "zygote": {
            "user": user,
            "test_home": isolate["test_home"],
            "preload": list(isolate["candidate"].get("preload", [])),
            "go_fd": theirs.fileno(),
            "said_fd": said_w,
        }
    }
    here = os.path.dirname(os.path.abspath(__file__))
    command = [sys.executable, "-I", os.path.join(here, "runtest.py"), json.dumps(message)]
    try:
        process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=out_w,
            stderr=out_w,
            pass_fds=(theirs.fileno(), said_w),
            cwd=str(options["cwd"]),
            start_new_session=True,
        )
    except OSError as error:
        zygote.lost = f"cannot start the batch's test process: {error}"
        return zygote
    finally:
        theirs.close()
        os.close(said_w)
        os.close(out_w)
    zygote.pid = process.pid
    # Its own output (a library's warning at import): every slot's output starts with
    # it, as a normal test process's would. Its imports may take what a run's may.
    said = zygote._read_line(out_r, max(_FORK_WAIT_S, float(options["timeout_s"])))
    os.close(out_r)
    if said != "ready":
        zygote.lost = f"the batch's test process did not start ({said or 'it ended'})"
    return zygote


class _Slot:
    """A slot's test process, the supervisor's child (its group is killed at the limit)."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.status: int | None = None

    def poll(self) -> int | None:
        if self.status is None:
            try:
                done, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:
                self.status = -1
                return self.status
            if done:
                self.status = (
                    -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
                )
        return self.status

    def wait(self) -> int:
        while self.poll() is None:
            time.sleep(0.01)
        return int(self.status or 0)

    def kill(self) -> None:
        with contextlib.suppress(OSError):
            os.kill(self.pid, signal.SIGKILL)


def _take_nonces(path: str, count: int) -> list[str]:
    """One nonce per slot, read and then deleted before any test code can run."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
        try:
            text = os.read(fd, 64 * count + 64).decode("ascii", "replace")
        finally:
            os.close(fd)
        os.unlink(path)
    except OSError:
        text = ""
    nonces = text.split()
    return (nonces + [""] * count)[:count]


def _oom_kills() -> int:
    """Out-of-memory kills the container's memory cgroup counted so far (v2 or v1)."""
    for path in ("/sys/fs/cgroup/memory.events", "/sys/fs/cgroup/memory/memory.oom_control"):
        try:
            with open(path) as handle:
                for line in handle:
                    name, _, value = line.partition(" ")
                    if name == "oom_kill":
                        return int(value)
        except (OSError, ValueError):
            continue
    return 0


def _between(zygotes: set[int]) -> None:
    """End every process but this one and the zygotes (what the last slot left running:
    its test's and candidate's processes, their children), and reap them."""
    keep = {os.getpid(), *zygotes}
    for _ in range(500):
        others = [pid for pid in _pids() if pid not in keep]
        for pid in others:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        _reap(keep)
        if not others:
            return
        time.sleep(0.01)


def _pids() -> list[int]:
    try:
        return [int(name) for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        return []


def _reap(keep: set[int]) -> None:
    """Reap this process's children that ended (orphans come to PID 1), but ``keep``."""
    me = os.getpid()
    for pid in _pids():
        if pid in keep:
            continue
        try:
            with open(f"/proc/{pid}/stat", "rb") as handle:
                parent = int(handle.read().rsplit(b")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        if parent == me:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, os.WNOHANG)


def _fresh(sup: Any, isolate: dict[str, Any], user: list[int], slots: list[dict[str, Any]]) -> None:
    """Every folder a run may write, as a fresh container has it: the shared scratch
    emptied, the slots' logs and outputs folders emptied and the test user's, both homes
    made anew."""
    for folder, _ in sup.SHARED_SCRATCH:
        _empty(folder)
    for slot in slots:
        for key in ("log_dir", "outputs_dir"):
            if slot.get(key):
                _empty(str(slot[key]))
        sup._own_scratch(slot, user)
    sup._make_homes(isolate, user)


def _empty(folder: str) -> None:
    """Remove everything in ``folder`` (kept itself, as it was), whoever owns it: root
    here may not enter another user's folder (no DAC override), so each is taken over
    first."""
    try:
        info = os.lstat(folder)
    except FileNotFoundError:
        return
    if not stat.S_ISDIR(info.st_mode):
        return
    os.chown(folder, 0, 0, follow_symlinks=False)
    os.chmod(folder, 0o700)
    try:
        for name in os.listdir(folder):
            path = os.path.join(folder, name)
            if stat.S_ISDIR(os.lstat(path).st_mode):
                _empty(path)
                os.rmdir(path)
            else:
                os.unlink(path)
    finally:
        os.chown(folder, info.st_uid, info.st_gid, follow_symlinks=False)
        os.chmod(folder, stat.S_IMODE(info.st_mode))


def _write_output(sup: Any, nonce: str, output: bytes, tail: int) -> None:
    """The slot's output on stderr, between lines that name its nonce: its last ``tail``
    bytes, as the host keeps of a run's output (``cut``: bytes left out before them)."""
    cut = max(0, len(output) - tail)
    sup._write_all(2, f"\n{OUTPUT_MARK} {nonce} begin {cut}\n".encode())
    sup._write_all(2, output[cut:])
    sup._write_all(2, f"\n{OUTPUT_MARK} {nonce} end\n".encode())


# -- the zygote: in the test process ----------------------------------------------------


def zygote(options: dict[str, Any], runtest: Any) -> None:
    """Load the shared libraries as the test's user would (its home, its rights), then
    fork what the supervisor asks for, until it stops: a slot's test process, a slot's
    candidate's process, or the warm child that forks the test processes after the
    first (`_warm`)."""
    runtest.load_shared(options.get("preload", []), options["user"], str(options["test_home"]))
    _serve(int(options["go_fd"]), int(options["said_fd"]), runtest)


def _serve(go: int, said: int, runtest: Any) -> None:
    """Say "ready", then answer every message on ``go`` on ``said`` until it closes."""
    sys.stdout.flush()
    sys.stderr.flush()
    _say(said, "ready")
    # Nobody reads this process's output from now on (each slot has its own).
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.dup2(null, 2)
    os.close(null)
    while True:
        received = _receive(go)
        if received is None:
            os._exit(0)
        message, fds = received
        try:
            if message["kind"] == "warm":
                pid = _warm(message, fds, runtest, (go, said))
            else:
                pid = _fork_apart(message, fds, runtest)
        except Exception as error:
            _say(said, f"error: {type(error).__name__}: {error}")
            continue
        finally:
            for fd in fds.values():
                with contextlib.suppress(OSError):
                    os.close(fd)
        _say(said, str(pid))


def _warm(message: dict[str, Any], fds: dict[str, int], runtest: Any, mine: tuple[int, int]) -> int:
    """Fork the warm child: it imports ``names`` as the test's user (its environment,
    the test's ``argv``), the modules of the shared libraries the first test process
    imported after its fork, then forks the test processes on its own channel. The
    candidates' processes go on coming from here, without them."""
    pid = os.fork()
    if pid:
        return pid
    try:
        for fd in mine:
            os.close(fd)
        os.dup2(fds["out"], 1)
        os.dup2(fds["out"], 2)
        os.close(fds["out"])
        user = message["user"]
        os.setegid(int(user[1]))
        os.seteuid(int(user[0]))
        argv, sys.argv = sys.argv, [str(message["test_file"])]
        for name in message["names"]:
            with contextlib.suppress(Exception):
                __import__(str(name))
        sys.argv = argv
        os.seteuid(0)
        os.setegid(0)
        _serve(fds["go"], fds["said"], runtest)
    except BaseException:
        pass
    os._exit(1)


def _say(fd: int, line: str) -> None:
    os.write(fd, (line + "\n").encode())


def _receive(go: int) -> tuple[dict[str, Any], dict[str, int]] | None:
    """The next message and the descriptors that came with it, by the names it gives
    them; None when the supervisor is done."""
    import array
    import socket

    sock = socket.socket(fileno=os.dup(go))
    try:
        size = array.array("i").itemsize
        data, ancillary, _, _ = sock.recvmsg(1 << 22, socket.CMSG_SPACE(16 * size))
    finally:
        sock.close()
    if not data:
        return None
    fds: list[int] = []
    for level, kind, payload in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            numbers = array.array("i")
            numbers.frombytes(payload[: len(payload) - len(payload) % size])
            fds.extend(numbers)
    message = json.loads(data)
    names = message["fds"]
    if len(names) != len(fds):
        raise ValueError(f"{len(fds)} descriptors came for {names}")
    return message, {name: fds[number] for number, name in enumerate(names)}


def _fork_apart(message: dict[str, Any], fds: dict[str, int], runtest: Any) -> int:
    """Fork what ``message`` asks for (a slot's test process, or its candidate's), a
    process that is not this process's child but the supervisor's (an intermediate
    process forks it and ends); return its pid."""
    sys.stdout.flush()
    sys.stderr.flush()
    pid_r, pid_w = os.pipe()
    middle = os.fork()
    if middle == 0:
        try:
            os.close(pid_r)
            child = os.fork()
            if child:
                os.write(pid_w, str(child).encode())
                os._exit(0)
            os.close(pid_w)
            if message["kind"] == "candidate":
                _run_candidate(message["candidate"], fds["out"], runtest)
            else:
                _run_slot(message["test"], fds, runtest)
        except BaseException:
            pass
        os._exit(1)
    os.close(pid_w)
    try:
        data = os.read(pid_r, 32)
    finally:
        os.close(pid_r)
        os.waitpid(middle, 0)
    return int(data)


def _first_to_die() -> None:
    """This process and its children are the first the kernel kills for memory, and
    NumPy's global generator is seeded anew, as a new process's would be."""
    try:
        with open("/proc/self/oom_score_adj", "w") as handle:
            handle.write("1000")
    except OSError:
        pass
    random = sys.modules.get("numpy.random")
    if random is not None:
        with contextlib.suppress(Exception):
            random.seed()


def _run_slot(test: dict[str, Any], fds: dict[str, int], runtest: Any) -> None:
    """In the slot's test process: its own session, output and descriptors only; then
    the test as a normal test process runs it (it never returns)."""
    os.setsid()
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(fds["out"], 1)
    os.dup2(fds["out"], 2)
    test = {**test, "report_fd": fds["report"], "token_fd": fds["token"]}
    if "candidate" in fds:
        test["isolate"] = {**test["isolate"], "output_fd": fds["candidate"]}
    if "learn" in fds:
        test["learn_fd"] = fds["learn"]
    _close_all_but({fd for name, fd in fds.items() if name != "out"})
    _first_to_die()
    runtest.run(test, time.time())


def _run_candidate(candidate: dict[str, Any], output: int, runtest: Any) -> None:
    """In a slot's candidate's process, forked from the zygote (never from the warm
    child): as a normal run's, which its test process would have forked."""
    _first_to_die()
    runtest.candidate_process(candidate, output)


def _close_all_but(keep: set[int]) -> None:
    """Close every descriptor from 3 up but ``keep``."""
    low = 3
    for fd in sorted(fd for fd in keep if fd >= 3):
        os.closerange(low, fd)
        low = fd + 1
    os.closerange(low, 1 << 16)
