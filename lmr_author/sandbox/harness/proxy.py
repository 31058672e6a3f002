"""The goal function in the test's process: a proxy that calls the candidate's process.

In an isolated run the test's process never executes candidate code. The goal module
it imports is the masked file (trusted); right after the module runs, the goal
function's code is swapped for a trampoline (`install`), so every way the test reaches
it (the module attribute, a method, a decorator's wrapper, an alias) calls
`Channel.call`, which sends the arguments to the candidate's process (``candidate.py``,
another container that sees neither the tests nor this process), waits for its answer,
puts what the call changed back into the test's objects and returns the value
(`crossing`). Every exception the answer can cause is raised here, in the test, as the
candidate's failure; a value the test cannot send is reported to the supervisor as a
"crossing" record so that ``validate --run`` can say what could not cross.
"""

from __future__ import annotations

import builtins
import contextlib
import json
import os
import socket
import sys
import threading
import time
import traceback
import types

# Annotations only (``typing`` costs an import in every test process).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

if TYPE_CHECKING:
    from lmr_author.sandbox.harness import crossing
else:
    try:  # in a test container: loaded beside runtest.py (see `runtest.load_sibling`)
        import _lmr_harness_crossing as crossing
    except ImportError:  # on the host
        from lmr_author.sandbox.harness import crossing

safe_text = crossing.safe_text
CannotCross = crossing.CannotCross
ChannelClosed = crossing.ChannelClosed
Malformed = crossing.Malformed

#: Exceptions of the candidate raised as themselves in the test (a test may expect
#: them: ``assertRaises(ValueError)``); any other type becomes `CandidateError`. Never
#: StopIteration: raised inside a test's ``map`` or generator, it would end it quietly.
_RAISED_AS_IS = frozenset(
    name
    for name, value in vars(builtins).items()
    if isinstance(value, type) and issubclass(value, Exception)
) - {"StopIteration", "StopAsyncIteration"}
_MESSAGE_CAP = 2000
_TRACEBACK_CAP = 6000


class CandidateError(RuntimeError):
    """The candidate's process failed, or answered what cannot be an answer."""


#: The attribute an exception raised here for the candidate carries: what the
#: candidate's process said it raised (its type's name), or "" for our own words about
#: its answer. The test's records read it (`runtest.exception_of`): the candidate's text
#: is quoted and marked as its own, and never decides a verdict's reason.
CANDIDATE_MARK = "_lmr_candidate_raised"


def _marked(error: BaseException, raised: str = "") -> BaseException:
    with contextlib.suppress(Exception):
        setattr(error, CANDIDATE_MARK, raised)
    return error


class IsolationError(RuntimeError):
    """The call cannot cross to the candidate's process (nothing of the candidate's)."""


class Channel:
    """The connection to the candidate's process (one per process: a fork reconnects)."""

    def __init__(self, options: dict[str, Any], on_problem: Any) -> None:
        self.address = crossing.connect_address(str(options["socket"]))
        self.goal_path = os.path.realpath(str(options["goal_path"]))
        self.private = tuple(str(path) for path in options.get("private", ()))
        caps = options.get("answer_caps")
        if not (isinstance(caps, list) and len(caps) == 2 and all(type(n) is int for n in caps)):
            caps = [crossing.MESSAGE_CAP, crossing.ITEMS_CAP]
        #: What an answer may hold (bytes, values): parts of the run's memory limit.
        self.caps: tuple[int, int] = (caps[0], caps[1])
        allowed = options.get("changed")
        #: The inputs a call may change in place (the golden calls' changes), or None
        #: (the golden proof's own run: every change is put back, and noted).
        self.allowed: frozenset[str] | None = (
            None if not isinstance(allowed, list) else frozenset(str(name) for name in allowed)
        )
        #: The inputs the calls changed, as put back (for the golden proof).
        self.changed: set[str] = set()
        #: The goal's parameter names (for messages): ``self``, ``args[0]`` -> name.
        self.parameters: dict[str, str] = {}
        #: The candidate's process when this process forked it (else it runs apart).
        self.candidate_pid = options.get("candidate_pid")
        self.on_problem = on_problem
        self._lock = threading.Lock()
        self._sock: socket.socket | None = None
        self._pid = 0
        #: Set once the candidate's process was reached: a later refusal means it ended.
        self._reached = False
        #: How the candidate's process ended, once it has: later calls fail at once.
        self._ended: str | None = None
        #: Repository files the candidate's process says it read (for the golden proof;
        #: a hostile candidate's say-so is never used).
        self.candidate_read: set[str] = set()

    def _connected(self) -> socket.socket:
        if self._sock is not None and self._pid == os.getpid():
            return self._sock
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        # The candidate's process starts beside ours: wait for it to listen (the
        # supervisor's time limit ends a wait that never succeeds), unless it was reached
        # before or is gone: then it has ended, and waiting would only run out the time.
        while True:
            try:
                sock.connect(self.address)
                break
            except (FileNotFoundError, ConnectionRefusedError):
                if self._reached or self._candidate_gone():
                    sock.close()
                    raise ChannelClosed("the candidate's process no longer listens") from None
                time.sleep(0.02)
        self._sock, self._pid, self._reached = sock, os.getpid(), True
        return sock

    def _candidate_gone(self) -> bool:
        """Whether the candidate's process, when this process forked it, has ended."""
        pid = self.candidate_pid
        if not isinstance(pid, int) or pid <= 0 or os.getpid() == pid:
            return False
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:  # not this process's child (a fork of the test's)
            return False
        if done:
            self._ended = "it ended before it was reached"
        return bool(done)

    def call(
        self,
        module: str,
        qualname: str,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        *,
        method: bool = False,
    ) -> Any:
        header = {
            "op": "call",
            "module": module,
            "qualname": qualname,
            "sys_path": sys.path,
            "answer_caps": list(self.caps),
        }
        try:
            sent = crossing.send_call(header, args, kwargs, self.private, method=method)
        except Exception as error:  # what the test passes cannot be sent
            message = (
                f"the arguments of {qualname} cannot be sent to the candidate's process "
                f"({type(error).__name__}: {safe_text(str(error), 300)})"
            )
            self.on_problem("arguments", message)
            raise IsolationError(message) from None
        with self._lock:
            if self._ended is not None:
                raise _marked(
                    CandidateError(
                        f"the candidate's process had ended before the call of {qualname} "
                        f"({self._ended})"
                    )
                )
            try:
                sock = self._connected()
                crossing.send_message(sock, sent.parts)
                parts = crossing.recv_answer(sock, self.caps)
            except (ChannelClosed, OSError):
                self._sock = None
                self._ended = self._ended or self._how_it_ended()
                raise _marked(
                    CandidateError(
                        f"the candidate's process ended before it answered the call of "
                        f"{qualname} ({self._ended})"
                    )
                ) from None
            except crossing.TooLarge as error:
                self._close()
                raise _marked(CandidateError(f"answer too large: {error}")) from None
            except Malformed as error:
                self._close()
                raise _marked(
                    CandidateError(f"the candidate's answer is malformed: {error}")
                ) from None
        return self._answer(qualname, sent, parts)

    def _close(self) -> None:
        """Drop a connection whose stream can no longer be followed (the next call
        connects anew; the candidate's side of this one ends)."""
        if self._sock is not None:
            with contextlib.suppress(OSError):
                self._sock.close()
        self._sock = None

    def _how_it_ended(self) -> str:
        """How the candidate's process ended, when this process is its parent."""
        import signal

        pid = self.candidate_pid
        if not isinstance(pid, int) or pid <= 0:
            return "it crashed, exited or was killed"
        deadline = time.monotonic() + 2.0
        while time.monotonic() < deadline:
            try:
                done, status = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                break
            if done:
                if os.WIFSIGNALED(status):
                    number = os.WTERMSIG(status)
                    try:
                        name = signal.Signals(number).name
                    except ValueError:
                        name = f"signal {number}"
                    memory = ": out of memory?" if number == signal.SIGKILL else ""
                    return f"killed by {name}{memory}"
                return f"it exited with status {os.WEXITSTATUS(status)}"
            time.sleep(0.02)
        return "it closed its connection"

    def _answer(self, qualname: str, sent: Any, parts: list[bytes]) -> Any:
        try:
            header = json.loads(parts[0]) if parts else None
        except (ValueError, RecursionError):
            header = None
        if not isinstance(header, dict):
            raise CandidateError("the candidate's answer is malformed: no header")
        read = header.get("read")
        if isinstance(read, list):
            paths = [path for path in read[: crossing.ReadFiles.CAP] if isinstance(path, str)]
            self.candidate_read.update(safe_text(path, 500) for path in paths)
        if header.get("ok") is not True:
            too_large = header.get("too_large")
            if isinstance(too_large, str):
                # The channel cannot carry it under this memory limit: noted (a golden
                # answer too large proves the goal cannot cross), the candidate's failure.
                message = safe_text(too_large, 500)
                self.on_problem("answer", f"{qualname}: {message}")
                raise _marked(CandidateError(f"{qualname}: {message}"))
            cannot = header.get("cannot_cross")
            if isinstance(cannot, str):
                message = safe_text(cannot, 500)
                self.on_problem("answer", f"{qualname}: {message}")
                raise _marked(IsolationError(f"the answer of {qualname} cannot cross: {message}"))
            raise _raised(header.get("raised"))
        try:
            decoder = crossing.Decoder(sent, header, parts[1:])
            updates = header.get("updates", [])
            self._check_changes(qualname, sent, updates)
            crossing.apply_updates(decoder, updates)
            crossing.apply_random_states(header.get("random"), sent.states, parts[1:])
            return decoder.value(header.get("value"))
        except CandidateError as error:
            raise _marked(error) from None
        except (Malformed, CannotCross) as error:
            raise _marked(CandidateError(f"the candidate's answer is malformed: {error}")) from None
        except RecursionError:
            raise _marked(
                CandidateError("the candidate's answer is malformed: nested too deep")
            ) from None
        except Exception as error:  # applying its data to the test's objects failed
            raise _marked(
                CandidateError(
                    f"the candidate's answer cannot be applied: {type(error).__name__}: "
                    f"{safe_text(str(error), 300)}"
                )
            ) from None

    def _check_changes(self, qualname: str, sent: Any, updates: Any) -> None:
        """Refuse, before anything is put back, a change to an input that the golden
        calls leave as it was (the test could compute its expected values from it);
        note the inputs changed (the golden proof's own run keeps them)."""
        if not isinstance(updates, list):
            return  # malformed: `apply_updates` says so
        names = {
            sent.input_of(update[0]) for update in updates if isinstance(update, list) and update
        }
        names.discard("")
        if self.allowed is not None:
            refused = sorted(names - self.allowed)
            if refused:
                said = ", ".join(self._named(name) for name in refused)
                raise CandidateError(
                    f"the call of {qualname} changed {said} in place, which the golden code "
                    "leaves as it was: the change is not put back, and the candidate fails"
                )
        self.changed.update(names)

    def _named(self, name: str) -> str:
        parameter = self.parameters.get(name)
        return f"its input {name} ({parameter!r})" if parameter else f"its input {name}"


def _raised(raised: Any) -> BaseException:
    """The candidate's exception as one to raise in the test: a builtin exception type
    as itself (or the builtin it derives from), with its message and traceback as text."""
    if not isinstance(raised, dict):
        return CandidateError("the candidate's process failed without saying how")
    name = safe_text(raised.get("type"), 100)
    builtin = safe_text(raised.get("builtin"), 100)
    message = safe_text(raised.get("message"), _MESSAGE_CAP)
    kind: type[BaseException] = CandidateError
    shown = message
    if builtin in _RAISED_AS_IS:
        kind = getattr(builtins, builtin)
        if name != builtin:
            shown = f"{name}: {message}"
    else:
        shown = f"{name}: {message}" if name else message
    try:
        error = kind(shown)
    except Exception:
        error = CandidateError(f"{name}: {message}")
    text = safe_text(raised.get("traceback"), _TRACEBACK_CAP)
    if text:
        # For the log only: the verdict's reason is the test's record (`CANDIDATE_MARK`).
        with contextlib.suppress(Exception):
            error.add_note("in the candidate's process:\n" + text.rstrip())
    return _marked(error, name or builtin or "an exception")


# -- putting the proxy in place ---------------------------------------------------------

_CALL_NAME = "__lmr_isolated_call__"


class Goal:
    """Which function of which file is the goal, and what became of the proxy."""

    def __init__(self, options: dict[str, Any], channel: Channel, on_problem: Any) -> None:
        self.path = os.path.realpath(str(options["goal_path"]))
        self.class_path = [part for part in str(options.get("class_name") or "").split(".") if part]
        self.function = str(options["function"])
        self.channel = channel
        self.on_problem = on_problem
        self.installed = 0
        #: The trampolines put in place (by their code's id): their code and qualname.
        self.trampolines: dict[int, tuple[types.CodeType, str]] = {}

    def patch(self, module: types.ModuleType) -> None:
        """Swap the goal function's code for the trampoline in a freshly run module."""
        qualname = ".".join([*self.class_path, self.function])
        owner: Any = module
        for part in self.class_path:
            owner = vars(owner).get(part) if hasattr(owner, "__dict__") else None
            if not isinstance(owner, type):
                self.on_problem(
                    "goal", f"the goal module defines no class {'.'.join(self.class_path)}"
                )
                return
        raw = vars(owner).get(self.function)
        function = _definition(raw, self.path, self.function)
        if function is None:
            self.on_problem(
                "goal",
                f"{qualname} is not a function defined in the goal file (the proxy cannot "
                "stand in for it)",
            )
            return
        flags = function.__code__.co_flags
        if flags & (0x20 | 0x80 | 0x100 | 0x200):  # generator, coroutine, async generator
            self.on_problem("goal", f"{qualname} is a generator or coroutine function")
            return
        channel = self.channel
        name = module.__name__
        # A method's first input is its receiver (``self``): named as fixtures name it.
        method = bool(self.class_path) and not isinstance(raw, (staticmethod, classmethod))
        code = function.__code__
        count = code.co_argcount + code.co_kwonlyargcount
        for position, parameter in enumerate(code.co_varnames[: code.co_argcount]):
            [input_name] = crossing.input_names(position + 1, [], method=method)[-1:]
            channel.parameters[input_name] = parameter
        for parameter in code.co_varnames[:count]:
            channel.parameters[f"kwargs[{parameter!r}]"] = parameter

        def call(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
            return channel.call(name, qualname, args, kwargs, method=method)

        vars(module)[_CALL_NAME] = call
        function.__code__ = _trampoline(function.__code__)
        self.trampolines[id(function.__code__)] = (function.__code__, qualname)
        self.installed += 1

    def watch_source_lookups(self) -> None:
        """Note, as what cannot cross, a lookup of the goal function's source in this
        process (``inspect``, so TorchScript compiling it): it would get the masked
        file's code, not the proxy, and the candidate would never be called."""
        import inspect

        original = inspect.findsource
        goal = self

        def findsource(object: Any) -> Any:
            code = getattr(getattr(object, "__func__", object), "__code__", object)
            found = goal.trampolines.get(id(code))
            if found is not None and found[0] is code:
                goal.on_problem(
                    "goal",
                    f"the test looks up the source of {found[1]} (inspect, TorchScript), "
                    "which compiles the masked file's code in the test's process, not the "
                    "candidate's",
                )
            return original(object)

        inspect.findsource = findsource


def _definition(raw: Any, path: str, name: str) -> types.FunctionType | None:
    """The function object the goal file's ``def`` made, under descriptors and decorators."""
    seen = 0
    current = raw
    while current is not None and seen < 20:
        seen += 1
        if isinstance(current, (staticmethod, classmethod)):
            current = current.__func__
            continue
        if isinstance(current, property):
            current = current.fget
            continue
        if isinstance(current, types.FunctionType):
            code = current.__code__
            if code.co_name == name and os.path.realpath(code.co_filename) == path:
                return current
        current = getattr(current, "__wrapped__", None)
    return None


def _trampoline(original: types.CodeType) -> types.CodeType:
    """A code object that calls the channel, with the original's free variables (so it
    can replace the original's code), name, file and first line."""
    free = original.co_freevars
    touch = "; ".join(free) if free else "pass"
    source = (
        f"def _outer({', '.join(free)}):\n"
        f"    def _goal(*args, **kwargs):\n"
        f"        {touch}\n"
        f"        return {_CALL_NAME}(args, kwargs)\n"
        f"    return _goal\n"
    )
    namespace: dict[str, Any] = {}
    exec(compile(source, original.co_filename, "exec"), namespace)
    [code] = [c for c in namespace["_outer"].__code__.co_consts if isinstance(c, types.CodeType)]
    if code.co_freevars != free:
        raise IsolationError("the goal function's free variables cannot be matched")
    code = code.replace(co_name=original.co_name, co_firstlineno=original.co_firstlineno)
    if hasattr(original, "co_qualname"):  # Python 3.11 and later
        code = code.replace(co_qualname=original.co_qualname)
    return code


def install(options: dict[str, Any], on_problem: Any) -> Goal:
    """Replace the goal function with the proxy in the goal module, whenever and however
    it is imported (every loader of source files goes through ``exec_module``)."""
    import importlib.machinery

    channel = Channel(options, on_problem)
    goal = Goal(options, channel, on_problem)
    loader_class = importlib.machinery.SourceFileLoader
    original = loader_class.exec_module

    def exec_module(loader: Any, module: types.ModuleType) -> None:
        original(loader, module)
        origin = getattr(module, "__file__", None)
        if isinstance(origin, str) and os.path.realpath(origin) == goal.path:
            try:
                goal.patch(module)
            except Exception:
                on_problem("goal", "the proxy could not be installed: " + traceback.format_exc())

    loader_class.exec_module = exec_module  # type: ignore[method-assign, assignment]
    goal.watch_source_lookups()
    return goal
