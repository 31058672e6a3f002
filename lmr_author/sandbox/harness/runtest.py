"""The harness's test process: run one unit test file and record every test's outcome.

Started by ``supervise.py`` as ``python -I runtest.py <json options>``. It sets up
``sys.path`` as ``python unit_test/unit_test_<k>.py`` with the repository on
PYTHONPATH would, snapshots the assertion machinery (unittest, numpy.testing when the
tests use NumPy, builtins, the functions of every module already loaded, and this
file's own reporter), then runs the test file as ``__main__`` with ``unittest.main``
replaced by a recording runner. Per test it records passed, failed, errored, skipped,
expected failure or unexpected success; the module body itself is one more test
("<script>"), which passes only when the body runs to its end. Test classes never run
by the file and module-level ``test_*`` functions (pytest style) are run after the
body. Records go to the supervisor through a pipe, one JSON line each; the last one
(``end``) carries what was found tampered with. Nothing printed or exited by the
candidate counts: a process that ends before ``end`` is a failure.

In an isolated run (option ``isolate``) no candidate code runs in this process: the
goal module's goal function is replaced by a proxy to the candidate's process
(``proxy.py``), and what could not cross is recorded (``crossing`` records). Otherwise
(a goal that cannot cross) the candidate runs here, where a candidate written against
this file could still forge records; the tamper checks make that deliberate work, and
such runs are marked as not isolated.
"""

from __future__ import annotations

import builtins
import contextlib
import json
import linecache
import logging  # loaded before the test so that it is watched: published verdicts read logs
import os
import signal
import sys
import threading
import traceback
import types
import unittest
from typing import Any

SCRIPT_TEST = "<script>"
_write = os.write
_dumps = json.dumps
_exit = os._exit
_local = threading.local()


class Reporter:
    """Writes records to the supervisor's pipe; holds its own references to what it uses."""

    def __init__(self, fd: int, token: bytes) -> None:
        self.fd = fd
        self.token = token
        self.records: list[dict[str, Any]] = []

    def send(self, record: dict[str, Any]) -> None:
        self.records.append(record)
        line = _dumps(record, default=str)  # one line: JSON escapes every newline
        data = self.token + b" " + line.encode("utf-8", "replace") + b"\n"
        while data:
            written = _write(self.fd, data)
            data = data[written:]

    def test(
        self, test_id: str, outcome: str, detail: str = "", error: BaseException | None = None
    ) -> None:
        record: dict[str, Any] = {
            "event": "test",
            "id": test_id,
            "outcome": outcome,
            "detail": detail[-2000:],
        }
        if error is not None:
            record["exception"] = exception_of(error)
        self.send(record)


#: Set by the proxy on an exception it raises for the candidate (`proxy.CANDIDATE_MARK`).
_CANDIDATE_MARK = "_lmr_candidate_raised"


def exception_of(error: BaseException) -> dict[str, Any]:
    """What the verdict's reason is made of: the exception that reached the test's
    records, as this process has it (its type; its message), and whether the proxy
    raised it for the candidate (then its message is the candidate's text, and the
    type the candidate named is its say-so). Parsing the traceback's text instead would
    let text the candidate wrote (a message, a note) pose as the test's own lines."""
    kind = type(error)
    try:
        message = str(error)
    except Exception:
        message = "(its message could not be read)"
    found: dict[str, Any] = {
        "type": kind.__name__,
        "builtin": kind.__module__ == "builtins",
        "message": message[:2000],
    }
    mark = vars(error).get(_CANDIDATE_MARK) if hasattr(error, "__dict__") else None
    if isinstance(mark, str):
        found["candidate"] = mark[:200]
    return found


def main(argv: list[str]) -> None:
    options = json.loads(argv[1])
    # The candidate's process (forked below) would read our options in /proc.
    load_sibling("supervise").hide_command_line()
    isolate = options.get("isolate")
    if isolate:
        load_sibling("crossing")
        if isolate.get("fork"):
            # Started as root: the candidate's process is forked before anything of the
            # test's is read (the token stays in the pipe), then both drop to their users.
            isolate["candidate_pid"] = _fork_candidate(isolate, options["user"])
    user = options.get("user")
    if user is not None and os.geteuid() == 0:
        _become(user, isolate["test_home"] if isolate and isolate.get("fork") else None)
    token_fd = int(options["token_fd"])
    token = os.read(token_fd, 64)
    os.close(token_fd)
    reporter = Reporter(int(options["report_fd"]), token)
    # The supervisor ignores these (it is PID 1); tests get Python's usual handling back.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
    test_file = str(options["test_file"])
    path = os.path.abspath(test_file)
    sys.dont_write_bytecode = True
    sys.argv = [test_file]
    entries = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    sys.path[:0] = [os.path.dirname(path), *entries]
    _add_image_user_sites()
    goal = None
    read = None
    if options.get("isolate"):
        read = sys.modules["_lmr_harness_crossing"].ReadFiles(os.getcwd()).install()

        def crossing_problem(where: str, detail: str) -> None:
            reporter.send({"event": "crossing", "where": where, "detail": detail[-2000:]})

        goal = load_sibling("proxy").install(options["isolate"], crossing_problem)
    for name in options.get("preload", []):
        with contextlib.suppress(Exception):  # a module the image lacks is not watched
            __import__(name)
    runner = Runner(reporter)
    words = LogWords()
    words.install()
    watch = Snapshot.take(reporter)
    unittest.main = runner.main  # type: ignore[assignment]
    unittest.TestProgram = runner.main  # type: ignore[assignment, misc]
    watch.note_patched(unittest)
    code, status = _run_body(path, runner, reporter)
    if status == "passed":
        runner.run_leftovers(code)
    tampered = watch.check() + words.check() + _rebound_imports(code, runner.module)
    reporter.send(
        {
            "event": "end",
            "tampered": tampered[:50],
            "body": status,
            "logged": {"Passed": words.passed, "Failed": words.failed},
            "proxied": None if goal is None else goal.installed,
            "read": None if read is None else sorted(read.paths),
            "candidate_read": None if goal is None else sorted(goal.channel.candidate_read),
            "changed": None if goal is None else sorted(goal.channel.changed),
        }
    )
    sys.stdout.flush()
    sys.stderr.flush()
    _exit(0 if status == "passed" else 1)


def _fork_candidate(isolate: dict[str, Any], user: list[int]) -> int:
    """Fork the candidate's process (``candidate.py``) from this one, which has loaded
    the libraries both need (torch, numpy: imported once, shared by the fork) as the
    test user. The child closes every descriptor of the test's, takes its own output
    pipe and becomes the candidate's user; this process goes on as the test's."""
    candidate = isolate["candidate"]
    os.setegid(int(user[1]))
    os.seteuid(int(user[0]))  # files the imports make are the test user's, in its home
    private_env(str(isolate["test_home"]))
    for name in candidate.get("preload", []):
        if str(name).split(".")[0] in SHARED_LIBRARIES:
            with contextlib.suppress(Exception):
                _preload_library(str(name))
    os.seteuid(0)
    os.setegid(0)
    sys.stdout.flush()
    sys.stderr.flush()
    output = int(isolate["output_fd"])
    pid = os.fork()
    if pid:
        os.close(output)
        return pid
    status = 1
    try:
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(output, 1)
        os.dup2(output, 2)
        os.closerange(3, 1 << 16)  # the token and report pipes among them
        server = load_sibling("candidate")  # read as root: the harness is the tests'
        _become(candidate["user"], candidate["home"])
        server.run(candidate)
        status = 0
    except BaseException:
        traceback.print_exc()
    finally:
        os._exit(status)


def _preload_library(name: str) -> None:
    """Import ``name`` if it is an installed library, not a module of the repository
    (the goal module and what imports it must be each process's own)."""
    import importlib.util

    spec = importlib.util.find_spec(name)
    origin = getattr(spec, "origin", None) or ""
    paths = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    if spec is None or not origin or any(origin.startswith(p.rstrip("/") + "/") for p in paths):
        return
    __import__(name)


#: Libraries the test's process imports before it forks the candidate's, shared by
#: both: big, and holding no path of a user's at import (no home, cache or temporary
#: folder is looked up then). Every other module each process imports as its user,
#: after `private_env`, so a path one resolved is never the other's.
SHARED_LIBRARIES = frozenset(("numpy", "torch", "scipy", "pandas", "einops", "sklearn"))
#: Where a process keeps what libraries write per user (under its own home), and
#: the variables that say so.
_PRIVATE = (
    ("TMPDIR", "tmp"),
    ("TEMP", "tmp"),
    ("TMP", "tmp"),
    ("XDG_CACHE_HOME", ".cache"),
    ("XDG_CONFIG_HOME", ".config"),
    ("XDG_DATA_HOME", ".local/share"),
    ("XDG_STATE_HOME", ".local/state"),
    ("MPLCONFIGDIR", ".config/matplotlib"),
    ("HF_HOME", ".cache/huggingface"),
    ("TORCHINDUCTOR_CACHE_DIR", ".cache/torchinductor"),
    ("TRITON_CACHE_DIR", ".cache/triton"),
    ("NUMBA_CACHE_DIR", ".cache/numba"),
)
#: The container's scratch, shared by the run's users: a value there is replaced.
_SHARED_PREFIXES = ("/tmp", "/var/tmp", "/run/lock", "/dev/shm")


def private_env(home: str) -> None:
    """Point HOME, the temporary folder and the caches libraries write (matplotlib,
    Hugging Face, torch's compilers, numba) into ``home``, this process's own: what
    one of the run's users writes there, the other can neither read nor prepare. A
    value the image set elsewhere (a model cache it ships) is the image's, kept."""
    os.environ["HOME"] = home
    for name, below in _PRIVATE:
        current = os.environ.get(name, "")
        if not current or _shared(current):
            os.environ[name] = os.path.join(home, below)
    os.umask(0o077)  # what either writes is its own, wherever it writes it
    if "tempfile" in sys.modules:
        vars(sys.modules["tempfile"])["tempdir"] = None  # found again, in the new TMPDIR


def _shared(path: str) -> bool:
    path = os.path.normpath(path)
    return any(path == root or path.startswith(root + "/") for root in _SHARED_PREFIXES)


def _become(user: list[int], home: str | None) -> None:
    """Drop root for good: this process is ``user`` (uid, gid) from here on, with no
    supplementary groups and no capabilities."""
    os.setgroups([])
    os.setgid(int(user[1]))
    os.setuid(int(user[0]))
    if home is not None:
        private_env(home)


def load_sibling(name: str) -> Any:
    """A harness module beside this file, as ``_lmr_harness_<name>`` (this file runs
    with ``-I``, so its folder is not on ``sys.path``, and never should be)."""
    import importlib.util

    key = f"_lmr_harness_{name}"
    if key in sys.modules:
        return sys.modules[key]
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), f"{name}.py")
    spec = importlib.util.spec_from_file_location(key, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[key] = module
    spec.loader.exec_module(module)
    return module


def _add_image_user_sites() -> None:
    """Packages an image installed with ``pip install --user`` for its own user.

    The test runs as nobody with HOME in the scratch, so the build user's site folder
    (``/home/<user>/.local/...``) would be missed; it is image content, so add it (for
    the test's subprocesses too).
    """
    import glob
    import site

    version = f"python{sys.version_info[0]}.{sys.version_info[1]}"
    found = sorted(glob.glob(f"/home/*/.local/lib/{version}/site-packages"))
    readable = [folder for folder in found if os.access(folder, os.R_OK | os.X_OK)]
    for folder in readable:
        site.addsitedir(folder)
    if readable:
        current = os.environ.get("PYTHONPATH", "")
        os.environ["PYTHONPATH"] = os.pathsep.join([p for p in (current, *readable) if p])


def _run_body(path: str, runner: Runner, reporter: Reporter) -> tuple[Any, str]:
    """Run the test file as ``__main__``; record "<script>" as its outcome."""
    module = types.ModuleType("__main__")
    module.__file__ = path
    module.__builtins__ = builtins  # type: ignore[attr-defined]
    sys.modules["__main__"] = module
    try:
        with open(path, "rb") as handle:
            source = handle.read()
        code = compile(source, path, "exec", dont_inherit=True)
    except (OSError, SyntaxError, ValueError) as error:
        reporter.test(
            SCRIPT_TEST, "errored", "".join(traceback.format_exception_only(type(error), error))
        )
        return None, "errored"
    runner.code_objects = _code_objects(code)
    runner.module = module
    try:
        exec(code, module.__dict__)
    except SystemExit as stop:
        if stop.code in (None, 0) and runner.raised_by_test_file(stop):
            reporter.test(SCRIPT_TEST, "passed", "the script exited with status 0")
            return code, "passed"
        reporter.test(
            SCRIPT_TEST, "errored", f"the script was ended early: SystemExit({stop.code!r})"
        )
        return code, "errored"
    except AssertionError as error:
        reporter.test(SCRIPT_TEST, "failed", traceback.format_exc(), error)
        return code, "failed"
    except BaseException as error:
        reporter.test(SCRIPT_TEST, "errored", traceback.format_exc(), error)
        return code, "errored"
    reporter.test(SCRIPT_TEST, "passed")
    return code, "passed"


def _code_objects(code: types.CodeType) -> set[int]:
    """Ids of every code object compiled from the test file (nested ones too)."""
    found: set[int] = set()
    pending = [code]
    while pending:
        item = pending.pop()
        found.add(id(item))
        pending.extend(c for c in item.co_consts if isinstance(c, types.CodeType))
    return found


class Runner:
    """Runs unittest tests with a result that reports each outcome to the supervisor."""

    def __init__(self, reporter: Reporter) -> None:
        self.reporter = reporter
        self.ran: set[str] = set()
        self.code_objects: set[int] = set()
        self.module: types.ModuleType | None = None

    def raised_by_test_file(self, error: BaseException) -> bool:
        """True when ``error`` was raised by the test file's own code (not the candidate's)."""
        trace = error.__traceback__
        last = None
        while trace is not None:
            last = trace
            trace = trace.tb_next
        if last is None:
            return False
        frame = last.tb_frame
        # sys.exit() raises inside sys; the caller's frame is the one that decided. But a
        # candidate can bind sys.exit to a name the test calls (np.random.seed = sys.exit):
        # the exit must also be written on that line of the test file.
        if id(frame.f_code) not in self.code_objects:
            return False
        line = linecache.getline(frame.f_code.co_filename, last.tb_lineno)
        return any(word in line for word in ("exit(", "SystemExit", "quit("))

    def main(self, *args: Any, **kwargs: Any) -> Any:
        """Stand-in for ``unittest.main``: run the tests of ``__main__`` (or ``module``)."""
        module = kwargs.get("module", args[0] if args else "__main__")
        if isinstance(module, str):
            module = sys.modules.get(module, self.module)
        loader = unittest.defaultTestLoader
        suite = loader.loadTestsFromModule(module)
        names = kwargs.get("defaultTest")
        if names:
            names = [names] if isinstance(names, str) else list(names)
            suite = loader.loadTestsFromNames(names, module)
        self.run_suite(suite)
        return types.SimpleNamespace(result=None)

    def run_suite(self, suite: Any) -> None:
        suite.run(RecordingResult(self))

    def run_leftovers(self, code: Any) -> None:
        """Tests the file defines but never ran: TestCase classes, then ``test_*`` functions."""
        module = self.module
        if module is None:
            return
        loader = unittest.defaultTestLoader
        pending = unittest.TestSuite()
        for test in _flatten(loader.loadTestsFromModule(module)):
            if test.id() not in self.ran:
                pending.addTest(test)
        if pending.countTestCases():
            self.run_suite(pending)
            return
        if self.ran:
            return
        for name, value in list(vars(module).items()):
            if (
                name.startswith("test")
                and isinstance(value, types.FunctionType)
                and id(value.__code__) in self.code_objects
            ):
                self.ran.add(name)
                try:
                    value()
                except AssertionError as error:
                    self.reporter.test(name, "failed", traceback.format_exc(), error)
                except unittest.SkipTest as skip:
                    self.reporter.test(name, "skipped", str(skip))
                except BaseException as error:
                    self.reporter.test(name, "errored", traceback.format_exc(), error)
                else:
                    self.reporter.test(name, "passed")


def _flatten(suite: Any) -> list[Any]:
    found: list[Any] = []
    for item in suite:
        if hasattr(item, "__iter__"):
            found.extend(_flatten(item))
        else:
            found.append(item)
    return found


def _detail(err: Any) -> str:
    try:
        return "".join(traceback.format_exception(*err))
    except Exception:
        return repr(err)


#: Outcomes from best to worst: a test with several (subtests) reports its worst.
_ORDER = ("passed", "expected failure", "skipped", "unexpected success", "failed", "errored")


class RecordingResult(unittest.TestResult):
    """Reports each test once to the supervisor, with its worst outcome (subtests too)."""

    def __init__(self, runner: Runner) -> None:
        super().__init__()
        self.runner = runner
        self.current: dict[str, tuple[str, str, BaseException | None]] = {}

    def _set(self, test: Any, outcome: str, text: str = "", err: Any = None) -> None:
        key = test.id()
        previous = self.current.get(key)
        if previous is None or _ORDER.index(outcome) > _ORDER.index(previous[0]):
            error = err[1] if isinstance(err, tuple) and len(err) == 3 else None
            self.current[key] = (outcome, text, error if isinstance(error, BaseException) else None)

    def startTest(self, test: Any) -> None:
        super().startTest(test)
        self.runner.ran.add(test.id())

    def stopTest(self, test: Any) -> None:
        super().stopTest(test)
        outcome, text, error = self.current.pop(test.id(), ("passed", "", None))
        self.runner.reporter.test(test.id(), outcome, text, error)

    def addError(self, test: Any, err: Any) -> None:
        super().addError(test, err)
        self._set(test, "errored", _detail(err), err)

    def addFailure(self, test: Any, err: Any) -> None:
        super().addFailure(test, err)
        self._set(test, "failed", _detail(err), err)

    def addSkip(self, test: Any, reason: str) -> None:
        super().addSkip(test, reason)
        self._set(test, "skipped", reason)

    def addExpectedFailure(self, test: Any, err: Any) -> None:
        super().addExpectedFailure(test, err)
        self._set(test, "expected failure", _detail(err))

    def addUnexpectedSuccess(self, test: Any) -> None:
        super().addUnexpectedSuccess(test)
        self._set(test, "unexpected success")

    def addSubTest(self, test: Any, subtest: Any, err: Any) -> None:
        super().addSubTest(test, subtest, err)
        if err is not None:
            failed = issubclass(err[0], test.failureException)
            self._set(test, "failed" if failed else "errored", _detail(err), err)


class LogWords:
    """Counts "Passed"/"Failed" in every message the test hands to ``logging``, before a
    level, filter, ``logging.disable`` or handler could drop it. A published test's log
    file must agree: no "Failed" was said, and no "Passed" line is in the file that no
    logging call made (a candidate writing the log by hand)."""

    METHODS = ("debug", "info", "warning", "warn", "error", "exception", "critical", "log")

    def __init__(self) -> None:
        self.passed = 0
        self.failed = 0
        self.disable = logging.root.manager.disable

    def install(self) -> None:
        for name in self.METHODS:
            setattr(logging.Logger, name, self._observed(name, getattr(logging.Logger, name)))

    def _observed(self, name: str, original: Any) -> Any:
        words = self

        def observed(logger: Any, *args: Any, **kwargs: Any) -> Any:
            # Outermost call only: exception() calls error(), warn() calls warning().
            if not getattr(_local, "depth", 0):
                message = args[1:] if name == "log" else args
                if message:
                    words.note(message[0], message[1:])
            _local.depth = getattr(_local, "depth", 0) + 1
            try:
                return original(logger, *args, **kwargs)
            finally:
                _local.depth -= 1

        observed.__name__ = observed.__qualname__ = name
        return observed

    def note(self, message: Any, args: tuple[Any, ...]) -> None:
        try:
            text = str(message)
            if args:
                text = text % (args[0] if len(args) == 1 and isinstance(args[0], dict) else args)
        except Exception:  # a message logging itself could not format
            text = str(message)
        self.passed += text.count("Passed")
        self.failed += text.count("Failed")

    def check(self) -> list[str]:
        """Ways around the observed methods: a global switch, a swapped module, loggers
        whose methods are not ours (instance attributes, another logger class)."""
        changed: list[str] = []
        if logging.root.manager.disable != self.disable:
            changed.append("logging.disable")
        if sys.modules.get("logging") is not logging:
            changed.append("sys.modules['logging']")
        ours = {name: vars(logging.Logger).get(name) for name in self.METHODS}
        loggers = [logging.root, *logging.root.manager.loggerDict.values()]
        for logger in loggers:
            if not isinstance(logger, logging.Logger):
                continue  # a placeholder
            for name, method in ours.items():
                bound = getattr(logger, name, None)
                if getattr(bound, "__func__", None) is not method:
                    changed.append(f"logger {logger.name!r}.{name}")
                    break
        return changed


def _rebound_imports(code: Any, module: Any) -> list[str]:
    """Names the test file imported that no longer hold what was imported (a candidate
    swapping the test's ``logging`` or ``np`` for a fake)."""
    if code is None or module is None:
        return []
    import ast

    try:
        with open(code.co_filename, "rb") as handle:
            tree = ast.parse(handle.read())
    except (OSError, SyntaxError, ValueError):
        return []
    namespace = vars(module)
    changed: list[str] = []
    for node in tree.body:
        if isinstance(node, ast.Import):
            for alias in node.names:
                bound = alias.asname or alias.name.split(".")[0]
                source = alias.name if alias.asname else alias.name.split(".")[0]
                expected = sys.modules.get(source)
                if bound in namespace and expected is not None and namespace[bound] is not expected:
                    changed.append(f"the test's name {bound!r}")
        elif isinstance(node, ast.ImportFrom) and node.module and _watched(node.module):
            origin = sys.modules.get(node.module)
            for alias in node.names:
                bound = alias.asname or alias.name
                if origin is None or alias.name == "*" or bound not in namespace:
                    continue
                if namespace[bound] is not getattr(origin, alias.name, _MISSING):
                    changed.append(f"the test's name {bound!r}")
    return changed


#: The assertion machinery: these modules (and their submodules) must not change.
_WATCHED = (
    "unittest",
    "numpy.testing",
    "torch.testing",
    "json",
    "math",
    "operator",
    "logging",
    "numpy",
)


def _watched(name: str) -> bool:
    """``numpy`` itself is watched at its top level only (np.allclose and friends)."""
    if name == "numpy":
        return True
    return any(name == root or name.startswith(root + ".") for root in _WATCHED[:-1])


class Snapshot:
    """What the verdict relies on, as loaded before the test file (and candidate) ran."""

    def __init__(self) -> None:
        self.bindings: dict[tuple[str, str], int] = {}
        self.codes: dict[tuple[str, str], tuple[int, int, int, int]] = {}
        self.objects: list[Any] = []  # keep everything alive so ids stay unique

    @classmethod
    def take(cls, reporter: Reporter) -> Snapshot:
        snap = cls()
        for name, module in list(sys.modules.items()):
            if isinstance(module, types.ModuleType) and _watched(name):
                snap._watch_namespace(name, vars(module), deep=True)
        snap._watch_namespace("builtins", vars(builtins), deep=False)
        for cls_ in _HARNESS_CLASSES:
            snap._watch_namespace(f"harness.{cls_.__name__}", dict(vars(cls_)), deep=True)
        return snap

    def _watch_namespace(self, owner: str, namespace: dict[str, Any], *, deep: bool) -> None:
        for attr, value in list(namespace.items()):
            if callable(value) or isinstance(value, types.ModuleType):
                self._watch_value(owner, attr, value, deep=deep)
            if deep and isinstance(value, type) and value.__module__ == namespace.get("__name__"):
                for key, member in list(vars(value).items()):
                    function = getattr(member, "__func__", member)
                    if callable(function):
                        self._watch_value(f"{owner}.{attr}", key, function, deep=True)

    def _watch_value(self, owner: str, attr: str, value: Any, *, deep: bool) -> None:
        self.bindings[(owner, attr)] = id(value)
        self.objects.append(value)
        code = getattr(value, "__code__", None)
        if deep and isinstance(code, types.CodeType):
            defaults = getattr(value, "__defaults__", None)
            kwdefaults = getattr(value, "__kwdefaults__", None)
            self.codes[(owner, attr)] = (id(value), id(code), id(defaults), id(kwdefaults))
            self.objects.extend([code, defaults, kwdefaults])

    def note_patched(self, unittest: Any) -> None:
        """Our own replacements of ``unittest.main`` are the expected state."""
        for attr in ("main", "TestProgram"):
            self.bindings[("unittest", attr)] = id(getattr(unittest, attr))
            self.objects.append(getattr(unittest, attr))

    def check(self) -> list[str]:
        """What changed since the snapshot: rebound names and replaced function code."""
        changed: list[str] = []
        namespaces: dict[str, Any] = {}
        for (owner, attr), ident in self.bindings.items():
            namespace = namespaces.get(owner)
            if namespace is None:
                namespace = namespaces[owner] = _namespace(owner)
            current = namespace.get(attr, _MISSING) if namespace is not None else _MISSING
            if namespace is not None and id(current) != ident:
                changed.append(f"{owner}.{attr}")
                continue
            if (owner, attr) in self.codes:
                was = self.codes[(owner, attr)]
                now = (
                    id(current),
                    id(getattr(current, "__code__", None)),
                    id(getattr(current, "__defaults__", None)),
                    id(getattr(current, "__kwdefaults__", None)),
                )
                if now != was:
                    changed.append(f"{owner}.{attr} (code)")
        return changed[:50]


_MISSING = object()


def _namespace(owner: str) -> dict[str, Any] | None:
    """The live namespace a snapshot entry was taken from."""
    if owner == "builtins":
        return vars(builtins)
    if owner.startswith("harness."):
        parts = owner.split(".")
        found: Any = {cls.__name__: cls for cls in _HARNESS_CLASSES}.get(parts[1])
        return dict(vars(found)) if found is not None else None
    # An owner is a module name, or a module name plus a class name.
    module = sys.modules.get(owner)
    if module is not None:
        return vars(module)
    head, _, cls_name = owner.rpartition(".")
    module = sys.modules.get(head)
    if module is None:
        return None
    cls = vars(module).get(cls_name)
    if not isinstance(cls, type):
        return {}
    return {key: getattr(value, "__func__", value) for key, value in vars(cls).items()}


_HARNESS_CLASSES = (Reporter, Runner, RecordingResult, Snapshot, LogWords)

if __name__ == "__main__":
    main(sys.argv)
