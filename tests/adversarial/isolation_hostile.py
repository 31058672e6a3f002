"""Hostile goal functions that are not forgeries of a verdict: probes that look for the
test side from inside the goal, and answers that are malformed, huge, unreadable or kill
their own process (issue 29).

Like `isolation_forgeries`, each is a snippet run after a plausible wrong computation
(``_own``, what is returned), wrapped by `isolation_forgeries.function_candidate`.

A probe can report what it found only through its answer: it returns ``_own`` with
every element set to ``1000 + bits`` (a bit per thing found), which the stand-in test
prints as ``output_mean=...`` in its failure message; ``output_mean=1000.0000`` means it
found nothing. `found_by` decodes a reason.
"""

from __future__ import annotations

import re

from tests.adversarial.isolation_forgeries import TOOLS, reporter_forgery

#: Markers of the test side's files, joined at run time so that the candidate's own
#: source (which holds this code) never matches them.
_READ_PROBE = """\
_bits = 0
_markers = [("expected" + "_output_"), ("REF_PARAMS" + "_GROUP"), ("test_zero" + "_adapter")]
_markers = [m.encode() for m in _markers]
_skipped = {"/proc", "/sys", "/dev", "/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin",
            "/sbin", "/boot"}
_paths = []
for _root, _dirs, _names in _os.walk("/"):
    _dirs[:] = [d for d in _dirs if _os.path.join(_root, d) not in _skipped
                and d not in ("site-packages", "dist-packages", "__pycache__")]
    _paths += [_os.path.join(_root, n) for n in _names]
    if _os.path.basename(_root) == "logs" and "unit_test" in _root and _names:
        _bits |= 4  # the test's logs folder, with files in it
for _path in _paths:
    _name = _os.path.basename(_path)
    if _name.startswith("unit_test_") and _name.endswith(".py"):
        _bits |= 1  # a test file
    if _name.endswith((".pkl", ".pt", ".npz")) or "/fixtures/" in _path or "/pickles/" in _path:
        _bits |= 2  # a fixture
    if _name in ("runtest.py", "supervise.py"):
        _bits |= 16  # the test harness
    if "golden" in _path:
        _bits |= 32  # a golden file
    try:
        _small = _os.path.isfile(_path) and _os.path.getsize(_path) < (1 << 20)
        if _small and not _os.path.islink(_path):
            with open(_path, "rb") as _handle:
                _data = _handle.read()
            if any(m in _data for m in _markers):
                _bits |= 64  # the test's text, wherever it is
    except OSError:
        pass
for _guess in [*_sys.argv[:1], "unit_test/unit_test_2.py", "/opt/lmr-harness/runtest.py"]:
    try:
        with open(_guess, "rb") as _handle:
            if any(m in _handle.read() for m in _markers) or _guess.endswith("runtest.py"):
                _bits |= 1 if "unit_test" in _guess else 16
    except OSError:
        pass
for _pid in _os.listdir("/proc"):
    if _pid.isdigit() and int(_pid) != _os.getpid():
        try:
            with open(f"/proc/{_pid}/cmdline", "rb") as _handle:
                _command = _handle.read()
        except OSError:
            continue
        if b"unit_test" in _command or b"runtest" in _command:
            _bits |= 8  # the test process
# Places of the test's side this process could write into (and plant files the test
# reads): a folder of someone else's in /tmp or /dev/shm, or a logs folder.
def _listed(top):
    try:  # the scratch may not even be listed (issue 39): nothing found there
        return [_os.path.join(top, name) for name in _os.listdir(top)]
    except OSError:
        return []


_places = [place for top in ("/tmp", "/dev/shm") for place in _listed(top)]
_places += ["/tmp", "/dev/shm", "/var/tmp", "/tmp/lmr-test-home"]
_places += [_root for _root, _, _ in _os.walk(_os.getcwd()) if _os.path.basename(_root) == "logs"]
for _place in _places:
    try:
        if not _os.path.isdir(_place) or _os.stat(_place).st_uid == _os.getuid():
            continue
        _probe = _os.path.join(_place, ".probe-%d" % _os.getpid())
        with open(_probe, "w") as _handle:
            _handle.write("x")
        _os.unlink(_probe)
        _bits |= 128
    except OSError:
        pass
_own = _own * 0 + (1000.0 + _bits)
"""
_GC_PROBE = """\
import logging as _logging
import unittest as _unittest

_bits = 0
for _item in _gc.get_objects():
    try:
        if isinstance(_item, _unittest.TestCase):
            _bits |= 1  # a test
        _code = getattr(_item, "__code__", None)
        if "unit_test" in str(getattr(_code, "co_filename", "")):
            _bits |= 2  # code of the test file
        if isinstance(_item, _logging.FileHandler) and "unit_test" in _item.baseFilename:
            _bits |= 4  # the test's log file
        if hasattr(_item, "token") and isinstance(getattr(_item, "fd", None), int):
            _bits |= 8  # the harness's reporter and its token
        if type(_item).__name__ in ("Snapshot", "LogWords", "RecordingResult", "Runner"):
            _bits |= 16  # the harness's watch of the test
    except Exception:
        pass
for _module in list(_sys.modules.values()):
    if "unit_test" in str(getattr(_module, "__file__", None) or ""):
        _bits |= 2
_own = _own * 0 + (1000.0 + _bits)
"""
_FRAME_PROBE = """\
import unittest as _unittest

_bits = 0
_frame = _sys._getframe(1)
while _frame is not None:
    _file = _frame.f_code.co_filename
    if "unit_test" in _file:
        _bits |= 1  # a frame of the test file
    if isinstance(_frame.f_locals.get("self"), _unittest.TestCase):
        _bits |= 2  # a test's frame
    if _file.endswith(("runtest.py", "supervise.py")):
        _bits |= 4  # the test harness
    if any("expected" in k or k.startswith("ref") for k in _frame.f_locals):
        _bits |= 8  # expected values in reach
    _frame = _frame.f_back
_own = _own * 0 + (1000.0 + _bits)
"""

#: name -> (snippet, {bit: what it means}); run as a ``forward`` (the module stand-in).
PROBES: dict[str, tuple[str, dict[int, str]]] = {
    "probe-files-and-processes": (
        TOOLS + _READ_PROBE,
        {
            1: "the test file",
            2: "a fixture",
            4: "the test's logs",
            8: "the test process in /proc",
            16: "the test harness's files",
            32: "a golden file",
            64: "the test's text in some file",
            128: "a folder of the test's side it can write into",
        },
    ),
    "probe-gc": (
        TOOLS + _GC_PROBE,
        {
            1: "a TestCase",
            2: "code of the test file",
            4: "the test's log handler",
            8: "the harness's reporter and token",
            16: "the harness's snapshot or runner",
        },
    ),
    "probe-frames": (
        TOOLS + _FRAME_PROBE,
        {
            1: "a frame of the test file",
            2: "a test's frame",
            4: "a frame of the test harness",
            8: "expected values in a frame",
        },
    ),
}

_MEAN = re.compile(r"output_mean=(-?[0-9.]+)")


def found_by(reason: str, meanings: dict[int, str]) -> list[str] | None:
    """What a probe found, from a run's reason; None when the reason holds no answer."""
    match = _MEAN.search(reason)
    if match is None:
        return None
    bits = round(float(match.group(1)) - 1000.0)
    if bits < 0 or bits > sum(meanings):
        return [f"an answer that is no probe code ({match.group(1)})"]
    return [meaning for bit, meaning in meanings.items() if bits & bit]


# --- code execution on the side that decodes the answer ------------------------------------

#: Run in whichever process unpickles it: the reporter forgery of `isolation_forgeries`
#: (found through gc), which passes every test if that process is the test's.
_RCE = f"""
_payload = {reporter_forgery()!r}


class _Evil:
    def __reduce__(self):
        return (exec, (_payload, {{}}))


class _EvilError(Exception):
    def __reduce__(self):
        return (exec, (_payload, {{}}))
"""

#: Answers forged below the values: whatever carries the answers in this process (a
#: module with ``send_message``/``recv_message``) sends, call after call, frames that no
#: honest encoder makes. Each must be the candidate's error on the test's side.
_CRAFTED_FRAMES = """\
import json as _json

_frames = [
    [b"[" * 100_000],
    [_json.dumps({"ok": True, "value": {"$new": 0}, "new": [
        {"ndarray": {"dtype": "float64", "shape": [1 << 40, 1 << 40], "blob": 0}}]}).encode(), b""],
    [_json.dumps({"ok": False, "raised": {"type": "SkipTest", "builtin": "SystemExit",
                  "message": "\\ud800" * 10, "traceback": "x" * (10 << 20)}}).encode()],
    [_json.dumps({"ok": True, "value": {"$ref": 0},
                  "updates": [[["o", 0], {"attrs": [[["forward", {"$ref": 0}]], []]}]],
                  "random": {"random": [3, [0] * 625, None]}}).encode()],
    [_json.dumps({"ok": True, "value": [1.0], "updates": "x", "new": {}}).encode()],
]
for _module in list(_sys.modules.values()):
    _send = getattr(_module, "send_message", None)
    if callable(_send) and hasattr(_module, "recv_message") and not hasattr(_module, "_forged"):
        _module._forged = iter(_frames * 10)

        def _forging(sock, parts, _send=_send, _module=_module):
            return _send(sock, next(_module._forged, parts))

        _module.send_message = _forging
"""

#: Every Unix socket this process can see (its network namespace is shared with the
#: test's container), connected to and sent a forged frame.
_EVERY_SOCKET = """\
import socket as _socket

_names = []
try:
    with open("/proc/net/unix") as _table:
        _rows = [line.split() for line in list(_table)[1:]]
    _names = [row[-1] for row in _rows if len(row) > 7]
except OSError:
    pass
for _name in _names:
    _address = b"\\0" + _name[1:].encode() if _name.startswith("@") else _name
    for _kind in (_socket.SOCK_STREAM, _socket.SOCK_DGRAM):
        try:
            with _socket.socket(_socket.AF_UNIX, _kind) as _peer:
                _peer.settimeout(0.5)
                _peer.connect(_address)
                _peer.sendall(bytes([0, 0, 0, 1]) + bytes([255]) * 8 + b'{"ok": true}')
        except OSError:
            pass
"""

#: name -> snippet, for a ``forward`` goal (the module stand-in): what it returns, raises
#: or does to its own process.
FORWARD_HOSTILE: dict[str, str] = {
    # answers; the huge ones are past the 512 MB a message may hold (the array is a view)
    "return-huge-array": (
        "import numpy as _np\n_own = _np.broadcast_to(_np.float64(1), (80 << 20,))\n"
    ),
    "return-huge-string": '_own = "x" * (600 << 20)\n',
    "return-huge-list": "_own = [0.5] * 70_000_000\n",
    "return-lone-surrogate": '_own = "\\ud800"\n',
    "return-surrogates-and-nul-in-keys": (
        '_own = {"\\ud800": "a\\x00\\udfff", ("\\udfff", 1): b"\\xff\\x00", "ok": [1.0]}\n'
    ),
    "return-control-characters": (
        '_own = "\\x00\\x01\\x07\\x1b[2J\\x1b]0;owned\\x07\\r\\n\\u2028\\u202e'
        '@@lmr-harness@@ 0 {}"\n'
    ),
    "return-deep-nesting": "_v = []\nfor _ in range(200_000):\n    _v = [_v]\n_own = _v\n",
    "return-reference-cycle": "_v = [1.0]\n_v.append(_v)\n_own = {'a': _v, 'b': _v}\n",
    "return-own-class": "class _Mine:\n    value = 1.0\n\n_own = _Mine()\n",
    "return-own-class-runs-code-when-decoded": _RCE + "\n_own = _Evil()\n",
    "return-object-array-runs-code-when-decoded": (
        _RCE
        + "\nimport numpy as _np\n_cells = _np.empty(_own.shape, dtype=object)\n"
        + "_cells[...] = _Evil()\n_own = _cells\n"
    ),
    "return-ndarray-subclass-runs-code-when-decoded": (
        _RCE
        + "\nimport numpy as _np\n\n\nclass _Sub(_np.ndarray):\n"
        + "    def __reduce__(self):\n        return (exec, (_payload, {}))\n\n\n"
        + "_own = _np.asarray(_own).view(_Sub)\n"
    ),
    "return-generator": "_own = (v for v in [1.0, 2.0])\n",
    "return-lambda": "_own = lambda: 0.0\n",
    "return-module": "_own = _sys\n",
    "return-open-file": '_own = open("/dev/null", "rb")\n',
    "return-frame": "_own = _sys._getframe()\n",
    "crafted-answer-frames": _CRAFTED_FRAMES,
    # exceptions
    "raise-assertion-lone-surrogate": 'raise AssertionError("\\ud800")\n',
    "raise-surrogate-and-nul": 'raise ValueError("a\\x00b\\ud800c\\udfff")\n',
    "raise-control-characters": (
        'raise RuntimeError("\\x1b[2J\\r\\nTest Passed\\n@@lmr-harness@@ 0 {}\\x00\\x07")\n'
    ),
    "raise-huge-message": 'raise ValueError("x" * (50 << 20))\n',
    "raise-own-exception-class": (
        'class _Boom(Exception):\n    def __str__(self):\n        return "Test Passed"\n\n'
        "raise _Boom()\n"
    ),
    "raise-exception-that-runs-code-when-decoded": _RCE + "\nraise _EvilError('boom')\n",
    "raise-exception-whose-str-raises": (
        "class _Bad(Exception):\n    def __str__(self):\n        raise RuntimeError('no')\n\n"
        "    __repr__ = __str__\n\nraise _Bad()\n"
    ),
    "raise-exception-holding-objects": (
        "raise ValueError(_sys._getframe(), lambda: 0, (v for v in ()), object(), _own)\n"
    ),
    "raise-deep-cause-chain": (
        "_error = ValueError('0')\nfor _i in range(5_000):\n"
        "    _next = ValueError(str(_i))\n    _next.__cause__ = _error\n    _error = _next\n"
        "raise _error\n"
    ),
    "raise-system-exit-0": "raise SystemExit(0)\n",
    "raise-keyboard-interrupt": "raise KeyboardInterrupt\n",
    "raise-stop-iteration": "raise StopIteration\n",
    "raise-generator-exit": "raise GeneratorExit\n",
    "raise-skip-test": 'import unittest as _u\nraise _u.SkipTest("not today")\n',
    "raise-base-exception": 'raise BaseException("Test Passed")\n',
}

#: name -> snippet for a ``step`` goal (the optimizer stand-in): the receiver's state
#: (and its parameters) left in a shape that cannot, or must not, cross back.
STEP_HOSTILE: dict[str, str] = {
    "state-generator": "for _p in _params(self):\n    self.state[_p]['extra'] = (i for i in [1])\n",
    "state-lambda": "self.hook = lambda: 0\n",
    "state-own-class": "class _Mine:\n    pass\n\nself.extra = _Mine()\n",
    "state-runs-code-when-decoded": _RCE + "\nself.extra = _Evil()\n",
    "state-surrogates-and-nul": (
        'self.param_groups[0]["\\ud800"] = "\\x00\\ud800"\n'
        'self.state[_params(self)[0]]["\\udfff"] = "a\\x00"\n'
    ),
    "state-deep-nesting": "_v = []\nfor _ in range(200_000):\n    _v = [_v]\nself.extra = _v\n",
    "state-huge": "self.extra = bytes(600 << 20)\n",
    "state-class-swapped": "class _Sub(type(self)):\n    pass\n\nself.__class__ = _Sub\n",
    "state-reference-cycles": "self.me = self\nself.state['all'] = self.state\n",
    "parameters-replaced": (
        "import tinynn as _t\n"
        "self.param_groups[0]['params'] = [_t.Parameter(p.data * 0) for p in _params(self)]\n"
    ),
}

#: name -> snippet for a ``forward`` goal: the candidate's own process, attacked.
PROCESS_HOSTILE: dict[str, str] = {
    "exit-0-during-the-call": "import os as _o\n_o._exit(0)\n",
    "kill-its-parent-and-pid-1": (
        "import os as _o, signal as _s\nfor _pid in (_o.getppid(), 1):\n    try:\n"
        "        _o.kill(_pid, _s.SIGKILL)\n    except OSError:\n        pass\n"
    ),
    "kill-itself": "import os as _o\n_o.kill(_o.getpid(), 9)\n",
    "out-of-memory": "_hog = []\nwhile True:\n    _hog.append(bytearray(64 << 20))\n",
    "hang": "while True:\n    pass\n",
    "stop-itself": "import os as _o, signal as _s\n_o.kill(_o.getpid(), _s.SIGSTOP)\n",
    "close-every-descriptor": "import os as _o\n_o.closerange(0, 65536)\n",
    "garbage-on-every-descriptor": (
        "import os as _o\nfor _fd in range(256):\n    try:\n"
        "        _o.write(_fd, b'\\x00\\xff{\"garbage\\n' * 64 + b'\\xff' * 8 + b'\\n')\n"
        "    except OSError:\n        pass\n"
    ),
    "late-writer-child": (
        "import os as _o, time as _t\nif _o.fork() == 0:\n    _t.sleep(0.3)\n"
        "    for _fd in range(256):\n        try:\n"
        '            _o.write(_fd, b\'{"event": "end", "tampered": []}\\n\' * 16)\n'
        "        except OSError:\n            pass\n    _o._exit(0)\n"
    ),
    "fill-the-disk": (
        "try:\n    with open('/tmp/fill', 'wb') as _f:\n        while True:\n"
        "            _f.write(b'x' * (1 << 20))\nexcept OSError:\n    pass\n"
    ),
    "flood-the-output": (
        "for _ in range(50):\n    print('y' * (1 << 20), flush=True)\n"
        "    print('z' * (1 << 20), file=_sys.stderr, flush=True)\n"
    ),
    "connect-to-every-socket": _EVERY_SOCKET,
    "forged-report-lines-on-output": (
        "import os as _o\n"
        "_line = b'\\n@@lmr-harness@@ 00000000000000000000000000000000 {\"records\": []}\\n'\n"
        "for _fd in (1, 2):\n"
        "    _o.write(_fd, _line + b'\\xff\\xfe\\x00\\x1b[2J' + _line)\n"
    ),
    "lingering-child": (
        "import subprocess as _sp\n"
        "_sp.Popen(['sleep', '600'], start_new_session=True, stdout=_sp.DEVNULL, "
        "stderr=_sp.DEVNULL)\n"
    ),
}
#: Process attacks that may end in the time limit rather than fail.
MAY_TIME_OUT = frozenset({"hang", "stop-itself"})
