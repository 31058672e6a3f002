"""What crosses between the test's process and the candidate's, without containers.

The candidate's server (``harness/candidate.py``) runs as a real process here; the
test's side is ``harness/proxy.Channel``. A faithful goal function's effects arrive as
they would in-process (return values, arguments changed in place, a receiver's new
state keyed by the objects the test sent, the random generators advanced); what cannot
cross or is malformed becomes an exception in the test, never anything else. A fake
candidate that answers whatever it likes checks the decoding side.
"""

from __future__ import annotations

import json
import os
import random
import socket
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lmr_author.sandbox.harness import crossing, proxy
from lmr_author.sandbox.harness.crossing import safe_text

HARNESS = Path(proxy.__file__).resolve().parent

GOAL = textwrap.dedent(
    '''\
    """A goal module in the shapes the published tasks have."""
    import random

    import numpy as np


    class Param:
        """A parameter as an optimizer sees it: data and grad, hashed by identity."""

        def __init__(self, data, grad=None):
            self.data = data
            self.grad = grad


    class Optimizer:
        def __init__(self, params, lr=0.1):
            self.params = list(params)
            self.lr = lr
            self.state = {}
            self.steps = 0

        def step(self, scale=1.0):
            for p in self.params:
                state = self.state.setdefault(p, {})
                if "m" not in state:
                    state["m"] = np.zeros_like(p.data)
                state["m"] = 0.9 * state["m"] + p.grad
                p.data -= self.lr * scale * np.sign(state["m"])
            self.steps += 1
            del self.lr_note
            return self.steps


    class Module:
        def __init__(self, weight):
            self.weight = weight
            self.calls = np.zeros(1)

        def forward(self, x):
            self.calls += 1
            return x @ self.weight


    class Layer:
        """Holds a local lambda, as loralib's layers do (``lora_dropout``)."""

        def __init__(self, factor):
            self.drop = lambda x: x * factor

        def forward(self, x):
            return self.drop(x)


    def call(function, value):
        return function(value)


    def scale(values, factor):
        return [v * factor for v in values], (factor, None, float("nan")), {"k": factor}


    def add_inplace(array, value):
        array += value


    def extend(items, item):
        items.append(item)
        return items


    def draw(n):
        return [random.random() for _ in range(n)], np.random.rand(n)


    def same(value):
        return value, value


    def shaped(x):
        return x.shape, x.dtype, np.float32(2.5), 3 + 4j, b"bytes", {1, 2}, frozenset({3})


    def boom(kind):
        if kind == "value":
            raise ValueError("bad value \\ud800 \\x00 \\x1b[31mred")
        if kind == "stop":
            raise StopIteration
        if kind == "exit":
            raise SystemExit(0)
        if kind == "custom":
            class AxisError(ValueError):
                pass
            raise AxisError("axis 3 is out of bounds")
        if kind == "infra":
            class InfraError(Exception):
                pass
            raise InfraError("the Docker engine failed while running the test")
        raise KeyError("missing")


    def generator():
        yield 1


    def a_lambda():
        return lambda: 1


    def own_object():
        class Answer:
            pass
        return Answer()


    def deep(n):
        value = []
        for _ in range(n):
            value = [value]
        return value


    def huge(kind):
        if kind == "array":  # a view: 640 MB once copied
            return np.broadcast_to(np.float64(1), (80 << 20,))
        if kind == "string":
            return "x" * (600 << 20)
        if kind == "bytes":
            return bytes(600 << 20)
        return [0.5] * 12_000_000


    def sized(count):
        return np.arange(count, dtype=np.float64)
    '''
)


@pytest.fixture(scope="module")
def goal_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("goal")
    (folder / "goalmod.py").write_text(GOAL)
    return folder


@pytest.fixture(scope="module")
def server(goal_dir: Path) -> Iterator[str]:
    """The candidate's server as a process of its own, on an abstract socket."""
    address = f"@lmr-test-{os.getpid()}-{time.monotonic_ns()}"
    options = {"socket": address, "goal_path": str(goal_dir / "goalmod.py"), "preload": ["numpy"]}
    env = {**os.environ, "PYTHONPATH": str(goal_dir)}
    process = subprocess.Popen(
        [sys.executable, "-I", str(HARNESS / "candidate.py"), json.dumps(options)],
        env=env,
        cwd=goal_dir,
    )
    try:
        yield address
    finally:
        process.kill()
        process.wait()


Problems = list[tuple[str, str]]


@pytest.fixture
def channel(server: str, goal_dir: Path) -> Iterator[tuple[proxy.Channel, Problems]]:
    problems: Problems = []
    sys.path.insert(0, str(goal_dir))
    try:
        options = {
            "socket": server,
            "goal_path": str(goal_dir / "goalmod.py"),
            "private": [__file__],  # this file stands for the tests
        }
        yield proxy.Channel(options, lambda where, what: problems.append((where, what))), problems
    finally:
        sys.path.remove(str(goal_dir))


def test_values_cross_by_value_and_identity_is_kept(channel: Any) -> None:
    link, problems = channel
    values, extra, named = link.call("goalmod", "scale", ([1, 2.5], 3), {})
    assert values == [3, 7.5] and extra[:2] == (3, None) and np.isnan(extra[2])
    assert named == {"k": 3}
    items: list[int] = [1]
    assert link.call("goalmod", "extend", (items, 2), {}) is items  # its own list back
    assert items == [1, 2]
    array = np.arange(4.0)
    assert link.call("goalmod", "add_inplace", (array, 1.5), {}) is None
    assert array.tolist() == [1.5, 2.5, 3.5, 4.5]
    first, second = link.call("goalmod", "same", ([1],), {})
    assert first is second  # one new object reached twice arrives as one
    shape, dtype, scalar, number, data, members, frozen = link.call(
        "goalmod", "shaped", (np.zeros((2, 3), dtype=np.int16),), {}
    )
    assert shape == (2, 3) and dtype == np.dtype("int16") and scalar == np.float32(2.5)
    assert (number, data, members, frozen) == (3 + 4j, b"bytes", {1, 2}, frozenset({3}))
    assert problems == []


def test_a_method_changes_its_receiver_as_it_would_in_process(channel: Any, goal_dir: Path) -> None:
    link, problems = channel
    import goalmod  # the test's own copy of the goal module (trusted)

    params = [goalmod.Param(np.ones(3), np.array([1.0, -1.0, 0.5])) for _ in range(2)]
    optimizer = goalmod.Optimizer(params)
    optimizer.lr_note = "removed by step"
    twin = goalmod.Optimizer([goalmod.Param(p.data.copy(), p.grad.copy()) for p in params])
    twin.lr_note = "removed by step"
    data_before = [p.data for p in params]
    for round_ in range(3):
        optimizer.lr_note = twin.lr_note = "again"
        assert link.call("goalmod", "Optimizer.step", (optimizer,), {"scale": 2.0}) == round_ + 1
        twin.step(scale=2.0)
    assert problems == []
    assert optimizer.steps == 3 and not hasattr(optimizer, "lr_note")
    for mine, theirs, before in zip(params, twin.params, data_before, strict=True):
        assert mine.data is before  # changed in place, as an optimizer's step does
        np.testing.assert_array_equal(mine.data, theirs.data)
    # The new state is keyed by the test's own parameters, as in-process.
    assert set(optimizer.state) == set(map(id, params)) or set(optimizer.state) == set(params)
    assert all(key in params for key in optimizer.state)
    np.testing.assert_array_equal(optimizer.state[params[0]]["m"], twin.state[twin.params[0]]["m"])
    module = goalmod.Module(np.eye(2))
    out = link.call("goalmod", "Module.forward", (module, np.array([[1.0, 2.0]])), {})
    assert out.tolist() == [[1.0, 2.0]] and module.calls.tolist() == [1.0]


def test_the_random_generators_advance_as_in_process(channel: Any) -> None:
    link, _ = channel
    import goalmod

    random.seed(7)
    np.random.seed(7)
    crossed = link.call("goalmod", "draw", (3,), {})
    after = (random.random(), np.random.rand())
    random.seed(7)
    np.random.seed(7)
    here = goalmod.draw(3)
    assert crossed[0] == here[0] and crossed[1].tolist() == here[1].tolist()
    assert after == (random.random(), np.random.rand())


def test_exceptions_come_back_as_builtins_and_never_as_control_flow(channel: Any) -> None:
    link, _ = channel
    with pytest.raises(ValueError) as value:
        link.call("goalmod", "boom", ("value",), {})
    assert "bad value" in str(value.value)
    assert safe_text(str(value.value)) == str(value.value)  # no surrogate, NUL or escape
    with pytest.raises(ValueError, match="AxisError: axis 3 is out of bounds"):
        link.call("goalmod", "boom", ("custom",), {})
    with pytest.raises(KeyError):
        link.call("goalmod", "boom", ("key",), {})
    for kind in ("stop", "exit"):  # would end a test's loop, or its process, quietly
        with pytest.raises(proxy.CandidateError):
            link.call("goalmod", "boom", (kind,), {})


@pytest.mark.parametrize(
    ("function", "what"),
    [
        ("generator", "a generator"),
        ("a_lambda", "a lambda"),
        ("own_object", "that the test did not send"),
        ("deep", "nested more than"),
    ],
)
def test_what_cannot_cross_is_said_and_raised(channel: Any, function: str, what: str) -> None:
    link, problems = channel
    args = (500,) if function == "deep" else ()
    with pytest.raises(proxy.IsolationError, match=what):
        link.call("goalmod", function, args, {})
    assert problems and problems[-1][0] == "answer" and what in problems[-1][1]


@pytest.mark.parametrize(
    ("kind", "what"),
    [
        ("array", "too large: a NumPy array"),
        ("string", "too large: a string"),
        ("bytes", "too large: bytes"),
        ("list", "too many values: a list of 12,000,000 items"),
    ],
)
def test_a_huge_answer_is_refused_before_it_is_encoded(channel: Any, kind: str, what: str) -> None:
    """The candidate's failure, "answer too large" (noted as what could not cross: a
    golden answer past the caps proves the goal cannot cross under this limit)."""
    link, problems = channel
    with pytest.raises(proxy.CandidateError, match="answer too large") as raised:
        link.call("goalmod", "huge", (kind,), {})
    assert getattr(raised.value, proxy.CANDIDATE_MARK) == ""  # our words, not its text
    assert problems[-1][0] == "answer" and "answer too large" in problems[-1][1]


def test_the_answer_caps_are_parts_of_the_memory_limit() -> None:
    assert crossing.answer_caps(1024) == (128 << 20, (128 << 20) // crossing.BYTES_PER_ITEM)
    assert crossing.answer_caps(2048)[0] == 256 << 20
    assert crossing.answer_caps(1 << 20)[0] == crossing.MESSAGE_CAP  # never past the frame's
    assert crossing.answer_caps(1)[0] == 1 << 20


@pytest.mark.parametrize(("megabytes", "passes"), [(7.9, True), (8.1, False)])
def test_an_answer_just_under_the_cap_crosses_and_one_over_is_too_large(
    channel: Any, megabytes: float, passes: bool
) -> None:
    """A run of 64 MB: answers of 8 MB at most. Just under crosses whole; just over is
    the candidate's "answer too large", never a crash of the test's side."""
    link, _problems = channel
    link.caps = crossing.answer_caps(64)
    count = int(megabytes * (1 << 20)) // 8
    if passes:
        array = link.call("goalmod", "sized", (count,), {})
        assert array.shape == (count,) and float(array[-1]) == count - 1
    else:
        with pytest.raises(proxy.CandidateError, match="answer too large"):
            link.call("goalmod", "sized", (count,), {})


def test_a_candidate_that_ignores_the_cap_is_refused_as_its_lengths_show() -> None:
    """A hostile candidate skips its own check and sends 40 MB to a test whose cap is
    8 MB: refused from the lengths, before the bytes are held, as "answer too large";
    a header of a million tiny values is refused before it is decoded."""
    blob = bytes(40 << 20)
    header = {"ok": True, "value": None, "updates": []}
    link, _ = FakeCandidate(_answer(header, blob)).channel()
    link.caps = crossing.answer_caps(64)
    with pytest.raises(proxy.CandidateError, match="answer too large"):
        link.call("goalmod", "f", (), {})
    many = {"ok": True, "value": {"$tuple": [0] * 1_000_000}, "updates": []}
    link, _ = FakeCandidate(_answer(many)).channel()
    link.caps = crossing.answer_caps(64)
    with pytest.raises(proxy.CandidateError, match="answer too large"):
        link.call("goalmod", "f", (), {})


def test_only_the_inputs_the_golden_call_changes_are_put_back(server: str, goal_dir: Path) -> None:
    """The golden proof's own run (nothing known) puts every change back and notes which
    input it was; a candidate's change to any other input is refused, named, and the
    test's object is left as it was."""
    sys.path.insert(0, str(goal_dir))
    try:
        options: dict[str, Any] = {"socket": server, "goal_path": str(goal_dir / "goalmod.py")}
        proof = proxy.Channel(options, lambda *_: None)
        array = np.zeros(3)
        proof.call("goalmod", "add_inplace", (array, 1.0), {})
        assert array.tolist() == [1.0] * 3 and proof.changed == {"args[0]"}
        module = np.ones((2, 2))
        proof.call("goalmod", "Module.forward", (_module(module), np.ones((1, 2))), {}, method=True)
        assert proof.changed == {"args[0]", "self"}  # the buffer: the receiver's

        held = proxy.Channel({**options, "changed": []}, lambda *_: None)
        held.parameters["args[0]"] = "array"
        array = np.zeros(3)
        with pytest.raises(proxy.CandidateError, match=r"changed its input args\[0\] \('array'\)"):
            held.call("goalmod", "add_inplace", (array, 1.0), {})
        assert array.tolist() == [0.0] * 3  # not put back
        allowed = proxy.Channel({**options, "changed": ["args[0]"]}, lambda *_: None)
        allowed.call("goalmod", "add_inplace", (array, 2.0), {})
        assert array.tolist() == [2.0] * 3
        by_name = proxy.Channel({**options, "changed": ["args[0]"]}, lambda *_: None)
        with pytest.raises(proxy.CandidateError, match=r"kwargs\['array'\]"):
            by_name.call("goalmod", "add_inplace", (), {"array": array, "value": 1.0})
    finally:
        sys.path.remove(str(goal_dir))


def _module(weight: Any) -> Any:
    import goalmod  # type: ignore[import-not-found]

    return goalmod.Module(weight)


def test_the_candidates_exceptions_are_marked_as_its_own(channel: Any) -> None:
    """Its message and the type it names are its text: the test's records say so."""
    link, _ = channel
    with pytest.raises(ValueError) as raised:
        link.call("goalmod", "boom", ("custom",), {})
    assert getattr(raised.value, proxy.CANDIDATE_MARK).endswith("AxisError")
    with pytest.raises(Exception) as other:
        link.call("goalmod", "boom", ("infra",), {})
    assert type(other.value) is Exception
    assert getattr(other.value, proxy.CANDIDATE_MARK).endswith("InfraError")


def test_after_the_candidates_process_ended_every_call_fails_at_once(tmp_path: Path) -> None:
    """The first call finds it dead; later calls never wait for it to listen again."""
    (tmp_path / "dier.py").write_text("import os\n\ndef die(code):\n    os._exit(code)\n")
    address = f"@lmr-test-die-{os.getpid()}-{time.monotonic_ns()}"
    options = {"socket": address, "goal_path": str(tmp_path / "dier.py")}
    process = subprocess.Popen(
        [sys.executable, "-I", str(HARNESS / "candidate.py"), json.dumps(options)],
        env={**os.environ, "PYTHONPATH": str(tmp_path)},
        cwd=tmp_path,
    )
    sys.path.insert(0, str(tmp_path))
    outcomes: list[str] = []

    def calls() -> None:
        link = proxy.Channel({"socket": address, "goal_path": str(tmp_path / "dier.py")}, print)
        for _ in range(3):
            try:
                link.call("dier", "die", (3,), {})
            except proxy.CandidateError as error:
                outcomes.append(str(error))

    try:
        caller = threading.Thread(target=calls, daemon=True)
        caller.start()
        caller.join(timeout=120)  # a wait for a listener that is gone never ends
        assert not caller.is_alive(), "a call waited for the ended candidate"
    finally:
        sys.path.remove(str(tmp_path))
        process.kill()
        process.wait()
    assert len(outcomes) == 3
    assert "ended before it answered the call of die" in outcomes[0]
    assert all("had ended before the call of die" in text for text in outcomes[1:])


def test_the_harness_hides_its_command_line_from_other_processes() -> None:
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); import supervise; "
        "supervise.hide_command_line(); "
        "sys.stdout.buffer.write(open('/proc/self/cmdline', 'rb').read())"
    )
    secret = "unit_test/unit_test_7.py-expected-values"
    shown = subprocess.run(
        [sys.executable, "-c", code, str(HARNESS), secret], capture_output=True, check=True
    ).stdout
    assert secret.encode() not in shown and b"supervise" not in shown
    assert shown.strip(b"\0") == b""


def test_what_the_test_cannot_send_is_said(channel: Any) -> None:
    link, problems = channel
    with pytest.raises(proxy.IsolationError, match=r"cannot be sent.*is the test's"):
        link.call("goalmod", "same", (lambda: 1,), {})
    assert problems[-1][0] == "arguments"
    with pytest.raises(proxy.IsolationError, match="is defined in the test"):
        link.call("goalmod", "same", (Receiver(),), {})


def test_functions_of_the_goal_module_cross_by_value(channel: Any) -> None:
    """A local lambda of the goal module (not importable by name) crosses as code."""
    link, problems = channel
    import goalmod

    layer = goalmod.Layer(3)
    assert link.call("goalmod", "Layer.forward", (layer, 2), {}) == 6
    assert link.call("goalmod", "call", (goalmod.deep, 1), {}) == [[]]  # by name
    assert problems == []


# -- a candidate that answers whatever it likes -----------------------------------------


class FakeCandidate:
    """A server that answers every call with ``reply(parts)``: the candidate's side
    as a hostile candidate could write it."""

    def __init__(self, reply: Callable[[list[bytes]], list[bytes]]) -> None:
        self.reply = reply
        self.address = f"@lmr-fake-{os.getpid()}-{time.monotonic_ns()}"
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(crossing.connect_address(self.address))
        self.sock.listen(4)
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                connection, _ = self.sock.accept()
            except OSError:
                return
            with connection:
                try:
                    while True:
                        parts = crossing.recv_message(connection)
                        crossing.send_message(connection, self.reply(parts))
                except (crossing.ChannelClosed, crossing.Malformed, OSError):
                    continue

    def channel(self) -> tuple[proxy.Channel, Problems]:
        problems: Problems = []
        options = {"socket": self.address, "goal_path": "/nonexistent/goalmod.py"}
        return proxy.Channel(options, lambda w, m: problems.append((w, m))), problems


def _answer(header: Any, *blobs: bytes) -> Callable[[list[bytes]], list[bytes]]:
    return lambda _parts: [json.dumps(header).encode(), *blobs]


class Receiver:
    """An object the test sends; its class is not the candidate's to change."""

    def __init__(self) -> None:
        self.items = [1]


def _class_state() -> dict[str, Any]:
    # Pickling notes __slotnames__ on the class (copyreg's cache): ours, not the candidate's.
    return {k: v for k, v in vars(Receiver).items() if k != "__slotnames__"}


MALICIOUS = {
    "a reference to nothing sent": {"ok": True, "value": {"$ref": 99999}, "updates": []},
    "an unknown tag": {"ok": True, "value": {"$pickle": "gASV"}, "updates": []},
    "a bare list": {"ok": True, "value": [1, 2], "updates": []},
    "a blob that is not there": {
        "ok": True,
        "value": {"$npscalar": {"dtype": "float64", "shape": [], "blob": 3}},
        "updates": [],
    },
    "a shape larger than its bytes": {
        "ok": True,
        "value": {"$new": 0},
        "new": [{"ndarray": {"dtype": "float64", "shape": [1 << 40, 1 << 40], "blob": 0}}],
        "updates": [],
    },
    "an object dtype": {
        "ok": True,
        "value": {"$new": 0},
        "new": [{"ndarray": {"dtype": "object", "shape": [1], "blob": 0}}],
        "updates": [],
    },
    "an update of the class it was sent": {
        "ok": True,
        "value": None,
        "updates": [[["o", 2], {"attrs": [[["evil", 1]], []]}]],
    },
    "an update of kind list for an object": {
        "ok": True,
        "value": None,
        "updates": [[["o", 0], {"list": [1]}]],
    },
    "an unhashable key": {
        "ok": True,
        "value": {"$new": 0},
        "new": [{"dict": [[{"$new": 1}, 1]]}, {"list": []}],
        "updates": [],
    },
    "a new object that holds itself early": {
        "ok": True,
        "value": {"$new": 0},
        "new": [{"bytearray": {"$new": 0}}],
        "updates": [],
    },
    "a huge integer": {"ok": True, "value": {"$int": "9" * 5000}, "updates": []},
    "a state of the generators that is not one": {
        "ok": True,
        "value": 1,
        "updates": [],
        "random": {"random": [3, [1] * 3, None]},
    },
    "no header": None,
    "a raised that is a list": {"ok": False, "raised": ["SystemExit"]},
}


@pytest.mark.parametrize("name", sorted(MALICIOUS))
def test_a_malformed_answer_is_the_candidates_error(name: str) -> None:
    fake = FakeCandidate(_answer(MALICIOUS[name], b"\0" * 8))
    link, _ = fake.channel()
    receiver = Receiver()
    before = _class_state()
    with pytest.raises(proxy.CandidateError):
        link.call("goalmod", "f", (receiver, [1]), {})
    assert _class_state() == before and receiver.items == [1]


def test_a_candidate_that_dies_or_floods_is_its_own_error() -> None:
    def die(_parts: list[bytes]) -> list[bytes]:
        os.kill(os.getpid(), 0)  # alive: the fake closes the connection instead
        raise crossing.ChannelClosed

    link, _ = FakeCandidate(die).channel()
    with pytest.raises(proxy.CandidateError, match="ended before it answered"):
        link.call("goalmod", "f", (), {})


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
        lambda inner: (
            st.lists(inner, max_size=4)
            | st.dictionaries(
                st.sampled_from(
                    [
                        *("$ref", "$t", "$new", "$tuple", "$dict", "$size", "$npscalar"),
                        *("ok", "value", "updates", "new", "random", "raised", "cannot_cross"),
                        *("dict", "attrs"),
                    ]
                ),
                inner,
                max_size=3,
            )
        ),
        max_leaves=30,
    )
)
def test_any_answer_is_a_value_or_the_candidates_error(header: Any) -> None:
    """Whatever JSON a candidate answers: a value of the allowed kinds, or one of our
    two exceptions in the test, never another exception, never a change of the class."""
    if isinstance(header, dict):
        header.setdefault("ok", True)
    fake = FakeCandidate(_answer(header, b"\1" * 16))
    link, _ = fake.channel()
    receiver = Receiver()
    before = _class_state()
    try:
        value = link.call("goalmod", "f", (receiver,), {})
    except (proxy.CandidateError, proxy.IsolationError):
        pass
    except Exception as error:  # a builtin raised on the candidate's behalf
        assert type(error).__module__ == "builtins", error
    else:
        _assert_data(value, receiver)
    assert _class_state() == before


def _assert_data(value: Any, receiver: Receiver, depth: int = 0) -> None:
    assert depth < 250
    allowed = (type(None), bool, int, float, complex, str, bytes, bytearray, slice, range)
    if value is receiver or value is Ellipsis or isinstance(value, (*allowed, np.ndarray)):
        return
    if isinstance(value, np.generic | np.dtype):
        return
    assert isinstance(value, list | tuple | dict | set | frozenset), type(value)
    items = value.items() if isinstance(value, dict) else [(item, None) for item in value]
    for key, item in items:
        _assert_data(key, receiver, depth + 1)
        _assert_data(item, receiver, depth + 1)


def test_safe_text_removes_what_cannot_be_stored_or_printed() -> None:
    text = "ok \ud800 nul\x00 esc\x1b[2J c1\x9b tab\t crlf\r\n"
    cleaned = safe_text(text)
    cleaned.encode("utf-8")  # no lone surrogate left
    assert "\x00" not in cleaned and "\x1b" not in cleaned and "\x9b" not in cleaned
    assert "\t" in cleaned and "\r" not in cleaned and cleaned.endswith("crlf\n")
    assert len(safe_text("x" * 10_000, 100)) < 200


def test_the_candidates_goal_module_is_its_file_where_the_goal_file_is(tmp_path: Path) -> None:
    """Found as the test's process finds it (here: by an editable install's kind of
    finder, not on sys.path), run from the candidate's file, named as the goal file."""
    import importlib.util

    from lmr_author.sandbox.harness.candidate import CandidateFinder

    goal = tmp_path / "repo" / "editable_goal_mod.py"
    goal.parent.mkdir()
    goal.write_text("WHO = 'masked'\n")
    staged = tmp_path / "staged.py"
    staged.write_text("import os\nWHO = 'candidate:' + os.path.basename(__file__)\n")

    class Editable:
        def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
            if name == "editable_goal_mod":
                return importlib.util.spec_from_file_location(name, goal)
            return None

    finders = [CandidateFinder(str(goal), str(staged)), Editable()]
    sys.meta_path[:0] = finders
    try:
        import editable_goal_mod  # type: ignore[import-not-found]

        assert editable_goal_mod.WHO == "candidate:editable_goal_mod.py"
    finally:
        for finder in finders:
            sys.meta_path.remove(finder)
        sys.modules.pop("editable_goal_mod", None)


# -- the candidate's process serves its own source (issue 39) ---------------------------

LOOKUP = textwrap.dedent(
    '''\
    import inspect
    import linecache


    def own_line(function):
        """What a TorchScript-like compiler reads of ``function``: its own source."""
        return inspect.getsource(function).splitlines()[0]


    def helper(x):
        return x + 1


    HELPER = own_line(helper)


    def goal(x):
        """Source lookups in the candidate's process, as it runs."""
        linecache.clearcache()  # a library may; the candidate's lines stay served
        return [HELPER, own_line(helper), own_line(goal), linecache.getline(__file__, 1)]
    '''
)


def test_the_candidates_process_serves_the_candidates_source(tmp_path: Path) -> None:
    """The goal file at its path is the masked one (the test's process imports it); the
    candidate's, with a header that shifts every line, is what inspect, linecache and
    the loader's get_source read in the candidate's process."""
    masked = LOOKUP.replace('    """Source lookups', '    pass\n    """Source lookups')
    (tmp_path / "lookup.py").write_text(masked)
    shifted = "".join(f"# header line {n}\n" for n in range(10)) + LOOKUP
    (tmp_path / "candidate.py").write_text(shifted)
    address = f"@lmr-test-source-{os.getpid()}-{time.monotonic_ns()}"
    options = {
        "socket": address,
        "goal_path": str(tmp_path / "lookup.py"),
        "source_path": str(tmp_path / "candidate.py"),
    }
    process = subprocess.Popen(
        [sys.executable, "-I", str(HARNESS / "candidate.py"), json.dumps(options)],
        env={**os.environ, "PYTHONPATH": str(tmp_path)},
        cwd=tmp_path,
    )
    sys.path.insert(0, str(tmp_path))  # where the test's process finds the goal module
    try:
        link = proxy.Channel({"socket": address, "goal_path": str(tmp_path / "lookup.py")}, print)
        at_import, at_call, goal_line, first = link.call("lookup", "goal", (1,), {})
    finally:
        sys.path.remove(str(tmp_path))
        process.kill()
        process.wait()
    assert at_import == at_call == "def helper(x):"
    assert goal_line == "def goal(x):"
    assert first == "# header line 0\n"


def test_a_test_that_reads_the_goals_source_is_noted_as_what_cannot_cross(
    tmp_path: Path,
) -> None:
    """TorchScript in the test's process compiles the goal from the masked file, around
    the proxy: the channel says so (a golden run that fails that way is proven in the
    test's process, never "not proven"); other lookups are not noted."""
    (tmp_path / "scriptable.py").write_text("def goal(x):\n    pass\n\n\ndef other(x):\n    pass\n")
    script = textwrap.dedent(
        f"""\
        import importlib.util, inspect, json, sys
        spec = importlib.util.spec_from_file_location("_proxy", {str(HARNESS / "proxy.py")!r})
        proxy = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(proxy)
        problems = []
        options = {{"socket": "@lmr-unused", "goal_path": {str(tmp_path / "scriptable.py")!r},
                    "function": "goal"}}
        proxy.install(options, lambda where, what: problems.append([where, what]))
        sys.path.insert(0, {str(tmp_path)!r})
        import scriptable
        inspect.getsource(scriptable.other)
        first = list(problems)
        inspect.getsource(scriptable.goal)
        print(json.dumps([first, problems]))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, env=os.environ
    )
    first, problems = json.loads(done.stdout)
    assert first == []
    assert problems and problems[0][0] == "goal" and "source of goal" in problems[0][1]
