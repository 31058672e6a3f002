"""The candidate's process: runs the goal function for the test's process, by value.

Forked by the test process before it reads anything of the test's, as a user of its own
that cannot read the tests, their fixtures or logs (`run`; Docker, Podman), or started
as ``python -I candidate.py <json options>`` in a container of its own where they are
hidden (`main`; Apptainer). The goal module is the candidate's file (``source_path``)
standing where the goal file is (`CandidateFinder`). It listens on the socket it is
given, and for each call the test's process sends (`crossing`): rebuilds the arguments,
sets the random generators as the test had them, runs the candidate's goal function,
and answers with data only: the value, what the call changed in the objects it was sent,
and the generators' states. Nothing here is trusted: whatever this process does, all
that reaches the test is what the test's side decodes and checks.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.machinery
import json
import os
import socket
import sys
import threading
import traceback

# Annotations only (``typing`` costs an import in every test process).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _sibling(name: str) -> Any:
    """A harness module beside this file, under a name no repository uses."""
    import importlib.util

    key = f"_lmr_harness_{name}"
    if key not in sys.modules:
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), f"{name}.py")
        spec = importlib.util.spec_from_file_location(key, path)
        assert spec is not None and spec.loader is not None
        sys.modules[key] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(sys.modules[key])
    return sys.modules[key]


if TYPE_CHECKING:
    from lmr_author.sandbox.harness import crossing
else:
    crossing = _sibling("crossing")


def main(argv: list[str]) -> int:
    run(json.loads(argv[1]))
    return 0


def run(options: dict[str, Any]) -> None:
    """Serve the calls of the test's process until this process is stopped."""
    entries = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    sys.path[:0] = [p for p in entries if p not in sys.path]
    sys.dont_write_bytecode = True
    source = str(options.get("source_path") or options["goal_path"])
    sys.meta_path.insert(0, CandidateFinder(str(options["goal_path"]), source))
    options = {**options, "read": crossing.ReadFiles(os.getcwd()).install()}
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(crossing.connect_address(str(options["socket"])))
    server.listen(8)
    # Listening first, then the slow imports: the test's process starts meanwhile.
    for name in options.get("preload", []):
        # A module the image lacks (or worse) shows at the call that needs it.
        with contextlib.suppress(BaseException):
            importlib.import_module(str(name))
    serve(server, options)


class CandidateFinder:
    """Finds the goal module as usual (where the test's process finds it), but loads the
    candidate's source for it, compiled under the goal file's name: ``__file__`` and
    tracebacks say the goal file, and no cached bytecode of the masked file is used."""

    def __init__(self, goal_path: str, source_path: str) -> None:
        self.goal_path = os.path.realpath(goal_path)
        self.source_path = source_path

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        # As the other finders would find it (an editable install's finder too), then
        # with our loader if it is the goal module.
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            if finder is self or find is None:
                continue
            spec = find(name, path, target)
            if spec is not None:
                break
        else:
            return None
        origin = getattr(spec, "origin", None)
        if origin and os.path.realpath(origin) == self.goal_path:
            spec.loader = _CandidateLoader(name, origin, self.source_path)
        return spec


class _CandidateLoader(importlib.machinery.SourceFileLoader):
    """The candidate's source under the goal file's name, served as that file's source
    to every lookup in this process (the loader's ``get_source``, ``linecache``, so
    ``inspect``, tracebacks and TorchScript): the masked file at that path is the test's
    process's, and a candidate whose lines are shifted must not be compiled from it."""

    def __init__(self, name: str, path: str, source_path: str) -> None:
        super().__init__(name, path)
        self.source_path = source_path
        self._source: bytes | None = None

    def source(self) -> bytes:
        if self._source is None:
            with open(self.source_path, "rb") as handle:
                self._source = handle.read()
        return self._source

    def get_data(self, path: str) -> bytes:
        if path == self.path:
            return self.source()
        return super().get_data(path)

    def get_source(self, fullname: str) -> str:
        return _decoded(self.source())

    def get_code(self, fullname: str) -> Any:
        return compile(self.source(), self.path, "exec", dont_inherit=True)

    def exec_module(self, module: Any) -> None:
        serve_source((self.path, os.path.realpath(self.path)), self.source())
        super().exec_module(module)


def _decoded(source: bytes) -> str:
    """Python source as text, in the encoding it declares (PEP 263), as import reads it."""
    import io
    import tokenize

    encoding, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
    return str(source, encoding, "replace")


_SERVED: dict[str, tuple[int, None, list[str], str]] = {}


def serve_source(paths: tuple[str, ...], source: bytes) -> None:
    """Make ``linecache`` give ``source``'s lines for ``paths`` in this process, whatever
    file is there: a cache entry without a time (``checkcache`` keeps those), kept even
    when the cache is cleared (``updatecache`` asks here first)."""
    import linecache

    lines = _decoded(source).splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    for path in paths:
        _SERVED[path] = (len(source), None, lines, path)
        linecache.cache[path] = _SERVED[path]
    if getattr(linecache.updatecache, "_lmr_served", False):
        return
    original = linecache.updatecache

    def updatecache(filename: str, module_globals: Any = None) -> list[str]:
        entry = _SERVED.get(filename)
        if entry is None:
            return original(filename, module_globals)
        linecache.cache[filename] = entry
        return entry[2]

    updatecache._lmr_served = True  # type: ignore[attr-defined]
    linecache.updatecache = updatecache


def serve(server: socket.socket, options: dict[str, Any]) -> None:
    """Answer connections until the container is stopped (a fork of the test's process
    connects anew, so each connection gets a thread)."""
    while True:
        connection, _ = server.accept()
        threading.Thread(target=_answer_all, args=(connection, options), daemon=True).start()


def _answer_all(connection: socket.socket, options: dict[str, Any]) -> None:
    with connection:
        while True:
            try:
                parts = crossing.recv_message(connection)
            except (crossing.ChannelClosed, crossing.Malformed, OSError):
                return
            crossing.send_message(connection, answer(parts, options))


def answer(parts: list[bytes], options: dict[str, Any]) -> list[bytes]:
    """The answer to one call, as message parts."""
    header = json.loads(parts[0])
    paths = header.get("sys_path")
    if isinstance(paths, list):  # where the test's process finds modules, classes
        sys.path[:] = [p for p in paths if isinstance(p, str)]
    try:  # the candidate's goal module: failing to import it is the candidate's failure
        importlib.import_module(str(header["module"]))
    except BaseException as error:  # SyntaxError, SystemExit at import...
        return _header({"ok": False, "raised": _raised(error), **_read(options)})
    try:
        received = crossing.receive_call(parts)
        function = _goal(received.header, options)
    except crossing.CannotCross as error:
        return _header({"ok": False, "cannot_cross": str(error)})
    except Exception as error:
        return _header(
            {
                "ok": False,
                "cannot_cross": "the call cannot be rebuilt in the candidate's process: "
                f"{type(error).__name__}: {error}",
            }
        )
    crossing.set_call_context(received.states)
    encoder = crossing.Encoder(received)
    before = _digests(encoder, received)
    try:
        value = function(*received.args, **received.kwargs)
    except BaseException as error:
        return _header({"ok": False, "raised": _raised(error), **_read(options)})
    try:
        reply: dict[str, Any] = {"ok": True, "value": encoder.value(value, "the return value")}
        reply["updates"] = _updates(encoder, received, before)
        reply["random"] = crossing.encode_random_states(encoder)
        reply["new"] = encoder.new
        reply.update(_read(options))
    except crossing.AnswerTooLarge as error:
        return _header({"ok": False, "too_large": str(error)})
    except crossing.CannotCross as error:
        return _header({"ok": False, "cannot_cross": str(error)})
    return [json.dumps(reply).encode(), *encoder.blobs]


def _read(options: dict[str, Any]) -> dict[str, Any]:
    """What this process has read of the repository so far (see `crossing.ReadFiles`)."""
    read = options.get("read")
    return {"read": sorted(read.paths)} if read is not None else {}


def _header(reply: dict[str, Any]) -> list[bytes]:
    return [json.dumps(reply).encode()]


def _goal(header: dict[str, Any], options: dict[str, Any]) -> Any:
    """The candidate's goal function, found as the test's process named it."""
    module = importlib.import_module(str(header["module"]))
    origin = getattr(module, "__file__", None) or ""
    if os.path.realpath(origin) != os.path.realpath(str(options["goal_path"])):
        raise crossing.CannotCross(
            f"the test imports the goal module as {header['module']}, which is "
            f"{origin or 'not a file'} in the candidate's process"
        )
    owner: Any = module
    parts = str(header["qualname"]).split(".")
    for part in parts[:-1]:
        owner = vars(owner)[part]
    raw = vars(owner)[parts[-1]]
    if isinstance(raw, (staticmethod, classmethod)):
        return raw.__func__
    if isinstance(raw, property):
        return raw.fget
    return raw


def _digests(encoder: crossing.Encoder, received: crossing.Received) -> dict[Any, Any]:
    """What each object the call may change holds now: whole for containers and arrays,
    per attribute for instances."""
    digests: dict[Any, Any] = {}
    for number, array in enumerate(received.arrays):
        digests[("t", number)] = encoder.digest(array, whole=True)
    for index in received.tracked:
        obj = received.objects.get(index)
        if isinstance(obj, (list, dict, set, bytearray)):
            digests[("o", index)] = encoder.digest(obj, whole=True)
        elif isinstance(getattr(obj, "__dict__", None), dict):
            digests[("o", index)] = {
                name: encoder.digest(value, whole=False) for name, value in vars(obj).items()
            }
    return digests


def _updates(
    encoder: crossing.Encoder, received: crossing.Received, before: dict[Any, Any]
) -> list[Any]:
    """What the call changed, as updates for the test's side to apply."""
    after = _digests(encoder, received)
    updates: list[Any] = []
    for where, was in before.items():
        now = after.get(where)
        if now == was:
            continue
        kind, number = where
        target = received.arrays[number] if kind == "t" else received.objects[number]
        label = "an argument" if kind == "t" else f"a {type(target).__name__} it was sent"
        if isinstance(was, dict) and isinstance(now, dict):
            namespace = vars(target)
            assigned = [
                [name, encoder.value(namespace[name], f"{label}'s attribute {name}")]
                for name, digest in now.items()
                if was.get(name) != digest
            ]
            removed = [name for name in was if name not in now]
            updates.append([[kind, number], {"attrs": [assigned, removed]}])
        else:
            updates.append([[kind, number], encoder.state(target, label)])
    return updates


def _raised(error: BaseException) -> dict[str, Any]:
    builtin = next(
        (
            kind.__name__
            for kind in type(error).__mro__
            if kind.__module__ == "builtins" and issubclass(kind, BaseException)
        ),
        "Exception",
    )
    try:
        message = str(error)
    except BaseException:
        message = "(its message could not be read)"
    try:
        text = "".join(traceback.format_exception(type(error), error, error.__traceback__))
    except BaseException:
        text = ""
    # The test's side keeps a few thousand characters of each: send no more than that
    # (a 50 MB message would cost every call seconds of encoding and decoding).
    return {
        "type": _capped(type(error).__qualname__),
        "builtin": builtin,
        "message": _capped(message),
        "traceback": _capped(text),
    }


def _capped(text: str) -> str:
    return crossing.cut_middle(text, 20_000)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
