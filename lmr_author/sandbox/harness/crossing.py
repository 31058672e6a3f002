"""What crosses between the test's process and the candidate's: frames and values.

The candidate (the goal function under test) runs in a process of its own
(``candidate.py``, in a container of its own); the test's process calls it through a
socket (``proxy.py``). Each direction has its own rule:

* **test -> candidate**: the call's arguments (a method's receiver among them), the
  random generators' states, pickled. The test's process is trusted, so pickle is fine
  this way round. Tensors and arrays travel beside the pickle as raw bytes with a number
  each, and the pickle's memo numbers every other object sent, so both sides can name
  what was sent. Objects sent *by value* (containers, and instances whose state was
  pickled) are "tracked": the candidate may change them, as the call would in-process.
* **candidate -> test**: data only. One JSON header plus raw byte blobs. A value is a
  builtin (None, bool, int, float, str, bytes, list, tuple, dict, set, frozenset,
  complex, slice, range), a NumPy array or scalar or a torch tensor (numeric and bool
  dtypes, rebuilt from bytes), a torch.Size, dtype or device, or a reference to
  something the test sent. Nothing else is rebuilt, no code the candidate chose runs
  while decoding, and whatever is malformed raises `Malformed` (the candidate's error).

Standard library only (NumPy and torch are used when the test has loaded them): this
file is shipped into every test container with the rest of the harness.
"""

from __future__ import annotations

import binascii
import copyreg
import io
import json
import marshal
import math
import os
import pickle
import socket
import struct
import sys
import types

# Annotations only (``typing`` costs an import in every test process).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: Largest message either side accepts when no cap is given (the call the test sends:
#: its own data), and most blobs in one message.
MESSAGE_CAP = 512 << 20
BLOB_COUNT_CAP = 100_000
#: Deepest nesting of a decoded value.
DEPTH_CAP = 200
#: Most values (list items, dict entries, attributes...) one answer may hold when no
#: cap is given: past it the answer is refused at once, before minutes of encoding
#: (arrays and tensors cross as blobs, one value each).
ITEMS_CAP = 10_000_000
#: An answer's caps are a part of the run's memory limit (`answer_caps`): receiving it
#: costs the test's process about its size twice (the message, the values decoded from
#: it) and the candidate's about as much, all inside the one limit, so the largest
#: answer leaves the test's own work room. Each value of a container counts
#: ``BYTES_PER_ITEM`` bytes (its JSON, and the Python object it becomes).
ANSWER_SHARE = 8
BYTES_PER_ITEM = 32
#: What a message may hold beyond its data (framing, the header's own keys).
_SLACK = 1 << 20


def answer_caps(memory_mb: int) -> tuple[int, int]:
    """(bytes, values) an answer may hold in a run whose memory limit is ``memory_mb``."""
    size = max(1 << 20, min(MESSAGE_CAP, (max(1, memory_mb) << 20) // ANSWER_SHARE))
    return size, size // BYTES_PER_ITEM


def recv_answer(sock: socket.socket, caps: tuple[int, int]) -> list[bytes]:
    """An answer's parts, refused (`TooLarge`) past the caps before it is decoded: its
    bytes as the lengths say, its header's values as its JSON punctuation counts them."""
    parts = recv_message(sock, caps[0] + _SLACK)
    if parts:
        header = parts[0]
        values = sum(header.count(mark) for mark in (b",", b"[", b"{"))
        if values > caps[1] + _SLACK // BYTES_PER_ITEM:
            raise TooLarge(f"an answer of more than {caps[1]:,} values (at most {caps[1]:,})")
    return parts


_HEADER = struct.Struct("!I")
_LENGTH = struct.Struct("!Q")
_TORCH_DTYPES = frozenset(
    (
        "bool",
        "uint8",
        "int8",
        "int16",
        "int32",
        "int64",
        "float16",
        "bfloat16",
        "float32",
        "float64",
        "complex64",
        "complex128",
    )
)
_NUMPY_DTYPES = frozenset(
    (
        "bool",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "int8",
        "int16",
        "int32",
        "int64",
        "float16",
        "float32",
        "float64",
        "complex64",
        "complex128",
    )
)
_DEVICES = ("cpu", "cuda", "mps")


def _is_device(value: Any) -> bool:
    """``cpu``, ``cuda``, ``mps``, optionally with ``:N`` (N up to three digits)."""
    if not isinstance(value, str):
        return False
    kind, _, number = value.partition(":")
    plain = not number and ":" not in value
    return kind in _DEVICES and (plain or (number.isdigit() and len(number) <= 3))


class Malformed(Exception):
    """What the candidate's side sent is not a message or value of this format."""


class CannotCross(Exception):
    """A value that this format cannot carry (a generator, a lambda, an object of a
    class the test did not send, ...)."""


class TooLarge(Malformed):
    """An answer past the run's caps (`answer_caps`): the candidate's failure."""


class AnswerTooLarge(CannotCross):
    """What the candidate's side finds past the caps while it encodes (said the same)."""


class ChannelClosed(Exception):
    """The other side closed the connection (its process ended)."""


#: C0 and C1 controls (terminal escapes among them) but newline and tab.
_CONTROLS = {code: "?" for code in (*range(32), *range(127, 160)) if chr(code) not in "\n\t"}


def safe_text(value: Any, cap: int | None = None) -> str:
    """Text a candidate could have influenced, made safe to print and store: no lone
    surrogates (they cannot be written as UTF-8), no NUL or control characters but
    newline and tab (no terminal escapes), at most ``cap`` characters (head and tail)."""
    if not isinstance(value, str):
        return ""
    text = value.encode("utf-8", "replace").decode("utf-8", "replace")
    text = text.replace("\r\n", "\n").replace("\r", "\n").translate(_CONTROLS)
    return text if cap is None else cut_middle(text, cap)


def cut_middle(text: str, cap: int) -> str:
    """``text`` if at most ``cap`` characters, else its head and tail with what was cut."""
    if len(text) <= cap:
        return text
    half = cap // 2
    return f"{text[:half]} [... {len(text) - cap} characters cut ...] {text[-half:]}"


class ReadFiles:
    """Files of the repository a process opens for reading (an audit hook): what the
    test's process reads that the candidate's does not is the tests' (fixtures, expected
    values kept beside the code), which the golden proof makes private."""

    CAP = 500

    def __init__(self, root: str) -> None:
        self.root = os.path.realpath(root).rstrip("/") + "/"
        self.paths: set[str] = set()

    def install(self) -> ReadFiles:
        sys.addaudithook(self._hook)
        return self

    def _hook(self, event: str, args: tuple[Any, ...]) -> None:
        # Called for every audited event of the process: the common ones (imports of
        # installed libraries) must cost next to nothing.
        if event != "open" or len(self.paths) >= self.CAP:
            return
        path = args[0]
        # Python modules count (a test may import its expected values from one, and its
        # cached bytecode holds them too); compiled extensions do not.
        if not isinstance(path, str) or path.endswith(".so"):
            return
        if path.startswith("/") and not path.startswith(self.root):
            return
        mode = args[1] if len(args) > 1 else "r"
        if isinstance(mode, str) and any(c in mode for c in "wax+"):
            return
        full = os.path.realpath(path)
        if full.startswith(self.root):
            self.paths.add(full[len(self.root) :])


# -- frames -------------------------------------------------------------------------


def send_message(sock: socket.socket, parts: list[bytes]) -> None:
    """One message: a count, then each part with its length (sent part by part: never
    a second copy of a large message)."""
    sock.sendall(_HEADER.pack(len(parts)))
    for part in parts:
        sock.sendall(_LENGTH.pack(len(part)))
        sock.sendall(part)


def recv_message(sock: socket.socket, cap: int = MESSAGE_CAP) -> list[bytes]:
    """The parts of one message; `TooLarge` past ``cap`` bytes (as soon as the lengths
    say so, before the bytes are read), `Malformed` past the count, `ChannelClosed` at
    EOF."""
    (count,) = _HEADER.unpack(_recv_exact(sock, _HEADER.size))
    if count > BLOB_COUNT_CAP:
        raise Malformed(f"a message of {count} parts (at most {BLOB_COUNT_CAP})")
    parts: list[bytes] = []
    total = 0
    for _ in range(count):
        (length,) = _LENGTH.unpack(_recv_exact(sock, _LENGTH.size))
        total += length
        if total > cap:
            raise TooLarge(f"a message of more than {cap:,} bytes (at most {cap:,})")
        # A bytearray read in place: its bytes are held once (decoders copy what they keep).
        parts.append(_recv_exact(sock, length))  # type: ignore[arg-type]
    return parts


def _recv_exact(sock: socket.socket, size: int) -> bytearray:
    buffer = bytearray(size)
    view = memoryview(buffer)
    got = 0
    while got < size:
        read = sock.recv_into(view[got:], min(size - got, 1 << 20))
        if not read:
            raise ChannelClosed("the other side closed the connection")
        got += read
    return buffer


def connect_address(address: str) -> str | bytes:
    """A socket address: ``@name`` is Linux's abstract namespace, anything else a path."""
    return b"\0" + address[1:].encode() if address.startswith("@") else address


# -- the test's side: what is sent ----------------------------------------------------


def _torch() -> Any:
    return sys.modules.get("torch")


def _numpy() -> Any:
    return sys.modules.get("numpy")


class Sent:
    """One call's arguments as sent, and the test's own objects by the numbers both
    sides share (memo indices; tensor and array numbers)."""

    def __init__(self) -> None:
        self.parts: list[bytes] = []
        self.objects: dict[int, Any] = {}
        self.tracked_set: set[int] = set()
        self.arrays: list[Any] = []
        self.states: dict[str, Any] = {}
        #: The call's inputs in the order they were sent: (name, end of its objects'
        #: numbers, end of its arrays' numbers). What one reaches first is that input's.
        self.inputs: list[tuple[str, int, int]] = []

    def input_of(self, where: Any) -> str:
        """The input (``self``, ``args[0]``, ``kwargs['x']``) an update's target was
        reached from first; "" when the target is none of what was sent."""
        if not isinstance(where, list) or len(where) != 2 or type(where[1]) is not int:
            return ""
        kind, number = where
        position = 1 if kind == "o" else 2 if kind == "t" else 0
        if not position:
            return ""
        for name, *ends in self.inputs:
            if number < ends[position - 1]:
                return name
        return ""


class _Sender(pickle.Pickler):
    """Pickles the call, sending tensors and arrays beside it, and notes what is sent by
    value (so may be changed by the call) as opposed to by reference (classes,
    functions, enum members, loggers: never changed by what comes back)."""

    def __init__(self, file: io.BytesIO, private: tuple[str, ...]) -> None:
        super().__init__(file, protocol=5)
        self.arrays: list[Any] = []
        self.array_meta: list[dict[str, Any]] = []
        self.blobs: list[bytes] = []
        self._array_ids: dict[int, int] = {}
        self.by_value: set[int] = set()
        self.private = private

    def persistent_id(self, obj: Any) -> Any:
        torch = _torch()
        if torch is not None and isinstance(obj, torch.Tensor):
            return ("t", self._add_tensor(obj))
        numpy = _numpy()
        if numpy is not None and isinstance(obj, numpy.ndarray) and obj.dtype.kind in "biufc":
            return ("t", self._add_array(obj))
        return None

    def reducer_override(self, obj: Any) -> Any:
        if isinstance(obj, types.FunctionType):
            return self._function(obj)
        if isinstance(obj, type):
            self._not_the_tests(obj, f"the class {obj.__qualname__}")
            return NotImplemented
        if isinstance(obj, types.BuiltinFunctionType):
            return NotImplemented
        if isinstance(obj, types.ModuleType):
            raise pickle.PicklingError(f"a module ({obj.__name__}) cannot be sent")
        self._not_the_tests(type(obj), f"an object of class {type(obj).__qualname__}")
        reduce = copyreg.dispatch_table.get(type(obj))
        value = reduce(obj) if reduce is not None else obj.__reduce_ex__(5)
        if isinstance(value, str):
            return NotImplemented
        if isinstance(value, tuple) and any(
            len(value) > i and value[i] is not None for i in (2, 3, 4)
        ):
            self.by_value.add(id(obj))
        return value

    def _not_the_tests(self, kind: type, what: str) -> None:
        """Nothing of the test's own code (classes, functions) is sent, not even by name."""
        if kind.__module__ == "__main__" or self._is_private(getattr(kind, "__module__", "")):
            raise pickle.PicklingError(f"{what} is defined in the test")

    def _is_private(self, module_name: str) -> bool:
        module = sys.modules.get(module_name)
        path = getattr(module, "__file__", None) or ""
        return any(path == p or path.startswith(p.rstrip("/") + "/") for p in self.private)

    def _function(self, function: types.FunctionType) -> Any:
        """A function by name when the other side can import it; else (a lambda, a local
        function of the goal module or a library) by value: its code object, the module
        whose globals it uses, its defaults and closure. Never one of the test's."""
        code = function.__code__
        if function.__module__ == "__main__" or any(
            code.co_filename == p or code.co_filename.startswith(p.rstrip("/") + "/")
            for p in self.private
        ):
            raise pickle.PicklingError(f"the function {function.__qualname__} is the test's")
        owner: Any = sys.modules.get(function.__module__)
        for part in function.__qualname__.split("."):
            owner = getattr(owner, part, None)
        if owner is function:
            return NotImplemented
        cells = tuple(cell.cell_contents for cell in function.__closure__ or ())
        state = (function.__defaults__, function.__kwdefaults__, cells, function.__dict__)
        return (
            rebuild_function,
            (marshal.dumps(code), function.__module__, function.__qualname__, state),
        )

    def _add_tensor(self, tensor: Any) -> int:
        known = self._array_ids.get(id(tensor))
        if known is not None:
            return known
        torch = _torch()
        number = len(self.arrays)
        self._array_ids[id(tensor)] = number
        self.arrays.append(tensor)
        meta: dict[str, Any] = {"kind": "tensor"}
        self.array_meta.append(meta)
        meta.update(tensor_spec(tensor, self.blobs))
        meta["parameter"] = isinstance(tensor, torch.nn.Parameter)
        meta["requires_grad"] = bool(tensor.requires_grad)
        grad = tensor.grad if tensor.is_leaf else None
        meta["grad"] = None if grad is None else self._add_tensor(grad)
        return number

    def _add_array(self, array: Any) -> int:
        known = self._array_ids.get(id(array))
        if known is not None:
            return known
        number = len(self.arrays)
        self._array_ids[id(array)] = number
        self.arrays.append(array)
        self.array_meta.append({"kind": "ndarray", **array_spec(array, self.blobs)})
        return number


def rebuild_function(code: bytes, module: str, qualname: str, state: tuple[Any, ...]) -> Any:
    """A function the test's side sent by value (`_Sender._function`), in the module of
    the same name here (the candidate's side: the candidate's own process)."""
    import importlib

    defaults, kwdefaults, cells, attributes = state
    namespace = vars(importlib.import_module(module))
    function = types.FunctionType(
        marshal.loads(code),
        namespace,
        qualname.rsplit(".", 1)[-1],
        defaults,
        tuple(types.CellType(value) for value in cells),
    )
    function.__kwdefaults__ = kwdefaults
    function.__qualname__ = qualname
    function.__dict__.update(attributes)
    return function


def input_names(count: int, keys: list[str], *, method: bool) -> list[str]:
    """The names of a call's inputs as fixtures' "watch" lists name them: ``self`` for a
    method's receiver, ``args[N]`` (N from 0 after it), ``kwargs['key']``."""
    names = [f"args[{n - 1}]" if method else f"args[{n}]" for n in range(count)]
    if method and names:
        names[0] = "self"
    return names + [f"kwargs[{key!r}]" for key in keys]


def send_call(
    header: dict[str, Any],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    private: tuple[str, ...] = (),
    *,
    method: bool = False,
) -> Sent:
    """The message of one call. Raises whatever pickle raises for what cannot be sent;
    nothing defined in the ``private`` paths (the tests) or in ``__main__`` is sent.

    Each input is pickled on its own by one pickler (whose numbering goes on), so the
    numbers of what each input reaches first are a range: an update names its input.
    """
    buffer = io.BytesIO()
    sender = _Sender(buffer, private)
    values = [*args, *kwargs.values()]
    names = input_names(len(args), list(kwargs), method=method)
    sent = Sent()
    for name, value in zip(names, values):  # noqa: B905 (3.8: the harness's floor)
        sender.dump(value)
        sent.inputs.append((name, len(sender.memo.copy()), len(sender.arrays)))
    memo = sender.memo.copy()  # id -> (index, object); keeps temporaries alive
    sent.arrays = sender.arrays
    for ident, (index, obj) in memo.items():
        sent.objects[index] = obj
        if _trackable(obj) and (ident in sender.by_value or type(obj) in _EXACT_CONTAINERS):
            sent.tracked_set.add(index)
    header = {
        **header,
        "arrays": sender.array_meta,
        "tracked": sorted(sent.tracked_set),
        "args": len(args),
        "kwargs": list(kwargs),
    }
    sent.states = call_context()
    context = pickle.dumps(sent.states, protocol=5)
    sent.parts = [json.dumps(header).encode(), buffer.getvalue(), context, *sender.blobs]
    return sent


_EXACT_CONTAINERS = (list, dict, set, bytearray)


def _trackable(obj: Any) -> bool:
    if isinstance(obj, (list, dict, set, bytearray)):
        return True
    return hasattr(obj, "__dict__") and not isinstance(obj, (type, types.ModuleType))


def tensor_spec(tensor: Any, blobs: list[bytes]) -> dict[str, Any]:
    """A tensor's dtype, shape and device, its bytes appended to ``blobs``."""
    torch = _torch()
    name = str(tensor.dtype).replace("torch.", "", 1)
    if name not in _TORCH_DTYPES or tensor.layout != torch.strided:
        raise CannotCross(f"a tensor of dtype {name} and layout {tensor.layout}")
    flat = tensor.detach().to("cpu").contiguous().reshape(-1)
    blobs.append(flat.view(torch.uint8).numpy().tobytes() if flat.numel() else b"")
    return {
        "dtype": name,
        "shape": list(tensor.shape),
        "device": str(tensor.device),
        "blob": len(blobs) - 1,
    }


def array_spec(array: Any, blobs: list[bytes]) -> dict[str, Any]:
    """A NumPy array's dtype and shape (native byte order), its bytes appended to ``blobs``."""
    numpy = _numpy()
    native = numpy.ascontiguousarray(array)
    if native.dtype.byteorder == ">":
        native = native.astype(native.dtype.newbyteorder("="))
    name = native.dtype.name
    if name not in _NUMPY_DTYPES:
        raise CannotCross(f"a NumPy array of dtype {array.dtype}")
    blobs.append(native.tobytes())
    return {"dtype": name, "shape": list(native.shape), "blob": len(blobs) - 1}


def call_context() -> dict[str, Any]:
    """What the goal function may depend on besides its arguments: the global random
    generators as they are now, and torch's grad mode and default dtype."""
    import random

    states: dict[str, Any] = {"random": random.getstate()}
    numpy = _numpy()
    if numpy is not None:
        states["numpy"] = numpy.random.get_state()
    torch = _torch()
    if torch is not None:
        states["torch"] = torch.get_rng_state()
        states["grad"] = torch.is_grad_enabled()
        states["default_dtype"] = str(torch.get_default_dtype()).replace("torch.", "", 1)
    return states


# -- the candidate's side: reading the call, answering in data -------------------------


class Received:
    """One call as the candidate's process rebuilt it."""

    def __init__(self) -> None:
        self.args: tuple[Any, ...] = ()
        self.kwargs: dict[str, Any] = {}
        self.objects: dict[int, Any] = {}
        self.tracked: list[int] = []
        self.arrays: list[Any] = []
        self.header: dict[str, Any] = {}
        self.states: dict[str, Any] = {}


class _Receiver(pickle.Unpickler):
    def __init__(self, data: bytes, arrays: list[Any]) -> None:
        super().__init__(io.BytesIO(data))
        self.arrays = arrays

    def persistent_load(self, pid: Any) -> Any:
        return self.arrays[pid[1]]


def receive_call(parts: list[bytes]) -> Received:
    """The call the test sent (the candidate's side; pickle from the trusted test)."""
    received = Received()
    received.header = json.loads(parts[0])
    blobs = parts[3:]
    for meta in received.header["arrays"]:
        if meta["kind"] == "ndarray":
            received.arrays.append(decode_array(meta, blobs))
        else:
            received.arrays.append(
                decode_tensor(
                    meta,
                    blobs,
                    parameter=meta["parameter"],
                    requires_grad=meta["requires_grad"],
                )
            )
    for index, meta in enumerate(received.header["arrays"]):
        if meta["kind"] == "tensor" and meta["grad"] is not None:
            received.arrays[index].grad = received.arrays[meta["grad"]]
    unpickler = _Receiver(parts[1], received.arrays)
    count, keys = int(received.header["args"]), [str(k) for k in received.header["kwargs"]]
    received.args = tuple(unpickler.load() for _ in range(count))
    received.kwargs = {key: unpickler.load() for key in keys}
    received.objects = dict(unpickler.memo.copy())
    received.tracked = [int(i) for i in received.header["tracked"]]
    received.states = pickle.loads(parts[2])
    return received


def set_call_context(states: dict[str, Any]) -> None:
    """Make this process's generators, grad mode and default dtype the test's."""
    import random

    random.setstate(states["random"])
    numpy = _numpy()
    if numpy is not None and "numpy" in states:
        numpy.random.set_state(states["numpy"])
    torch = _torch()
    if torch is not None and "torch" in states:
        torch.set_rng_state(states["torch"])
        torch.set_grad_enabled(bool(states["grad"]))
        torch.set_default_dtype(getattr(torch, states["default_dtype"]))


class Encoder:
    """Values as data for the test's side: builtins, arrays, tensors, and references to
    what the test sent. New mutable objects (and tensors) get a number each, so that one
    object reached twice arrives as one object."""

    def __init__(self, received: Received) -> None:
        self.blobs: list[bytes] = []
        self.new: list[Any] = []
        #: What the answer may hold (bytes, values), as the test's side will accept it:
        #: a huge answer is refused as soon as its size shows, never encoded first.
        caps = received.header.get("answer_caps")
        if not (isinstance(caps, list) and len(caps) == 2 and all(type(n) is int for n in caps)):
            caps = [MESSAGE_CAP, ITEMS_CAP]
        self.caps: tuple[int, int] = (caps[0], caps[1])
        self._bytes_left, self._items_left = self.caps
        self._new_ids: dict[int, int] = {}
        self._keep: list[Any] = []
        self._refs = {
            id(obj): index
            for index, obj in received.objects.items()
            if not isinstance(obj, (str, bytes, int, float, bool, type(None)))
        }
        self._arrays = {id(array): number for number, array in enumerate(received.arrays)}

    def value(self, value: Any, where: str, depth: int = 0) -> Any:
        if depth > DEPTH_CAP:
            raise CannotCross(f"{where} is nested more than {DEPTH_CAP} levels deep")
        deeper = depth + 1
        kind = type(value)
        if value is None or kind is bool:
            return value
        if kind is str:
            # JSON writes a character that is not ASCII as six.
            self._spend(len(value) * (1 if value.isascii() else 6), 1, where, "a string")
            return value
        if kind is int:
            return value if abs(value) < 1 << 63 else {"$int": str(value)}
        if kind is float:
            return value if math.isfinite(value) else {"$float": repr(value)}
        number = self._arrays.get(id(value))
        if number is not None:
            return {"$t": number}
        ref = self._refs.get(id(value))
        if ref is not None:
            return {"$ref": ref}
        known = self._new_ids.get(id(value))
        if known is not None:
            return {"$new": known}
        for base in (bool, int, float, str):
            if isinstance(value, base):  # a subclass (an IntEnum member): as its base
                return self.value(base(value), where, depth)
        if kind is complex:
            return {"$complex": [self.value(value.real, where), self.value(value.imag, where)]}
        if kind is bytes:
            self._spend(len(value) * 4 // 3, 1, where, "bytes")
            return {"$bytes": binascii.b2a_base64(value, newline=False).decode("ascii")}
        if kind is slice:
            parts = (value.start, value.stop, value.step)
            return {"$slice": [self.value(p, where, deeper) for p in parts]}
        if kind is range:
            return {"$range": [value.start, value.stop, value.step]}
        if value is Ellipsis:
            return {"$ellipsis": None}
        torch = _torch()
        if torch is not None:
            if isinstance(value, torch.Size):
                return {"$size": [int(n) for n in value]}
            if isinstance(value, torch.dtype):
                return {"$dtype": str(value).replace("torch.", "", 1)}
            if isinstance(value, torch.device):
                return {"$device": str(value)}
        if isinstance(value, (tuple, frozenset)):
            self._spend(0, len(value), where, f"a {type(value).__name__} of {len(value):,} items")
        if isinstance(value, tuple):
            return {"$tuple": [self.value(item, where, deeper) for item in value]}
        if isinstance(value, frozenset):
            return {"$frozenset": [self.value(item, where, deeper) for item in value]}
        if isinstance(value, (list, dict, set, bytearray)):
            return self._new_object(value, where, deeper)
        if torch is not None and isinstance(value, torch.Tensor):
            return self._new_object(value, where, deeper)
        numpy = _numpy()
        if numpy is not None:
            if isinstance(value, numpy.ndarray):
                return self._new_object(value, where, deeper)
            if isinstance(value, numpy.generic):
                self._spend(value.nbytes, 1, where, "a NumPy scalar")
                spec = array_spec(numpy.asarray(value), self.blobs)
                return {"$npscalar": spec}
            if isinstance(value, numpy.dtype):
                return {"$npdtype": value.name}
        raise CannotCross(f"{where} holds {describe(value)}")

    def digest(self, value: Any, *, whole: bool) -> str:
        """A digest of ``value`` (its state when ``whole``, else the value as an
        attribute holds it), computed aside: what this encoder sends is unchanged.
        What cannot cross is digested by identity (it matters only if it changes)."""
        saved = (self.blobs, self.new, self._new_ids, self._keep)
        left = (self._bytes_left, self._items_left)
        self.blobs, self.new, self._new_ids, self._keep = [], [], {}, []
        self._bytes_left, self._items_left = self.caps
        try:
            encoded = self.state(value, "x") if whole else self.value(value, "x")
            import hashlib  # the candidate's side only

            digest = hashlib.sha256(json.dumps([encoded, self.new], default=str).encode())
            for blob in self.blobs:
                digest.update(hashlib.sha256(blob).digest())
            return digest.hexdigest()
        except CannotCross:
            return f"opaque:{id(value)}"
        finally:
            self.blobs, self.new, self._new_ids, self._keep = saved
            self._bytes_left, self._items_left = left

    def _spend(self, size: int, items: int, where: str, what: str) -> None:
        """Count ``size`` bytes and ``items`` values against the answer's caps."""
        self._bytes_left -= size + items * BYTES_PER_ITEM
        self._items_left -= items
        if self._bytes_left < 0:
            raise AnswerTooLarge(
                f"answer too large: {where} holds {what} of {size:,} bytes, past the "
                f"{self.caps[0]:,} bytes an answer may hold under this run's memory limit"
            )
        if self._items_left < 0:
            raise AnswerTooLarge(
                f"answer too large: {where} holds {what}, past the {self.caps[1]:,} values "
                "an answer may hold under this run's memory limit (return arrays or tensors)"
            )

    def _new_object(self, value: Any, where: str, depth: int) -> Any:
        number = len(self.new)
        self._new_ids[id(value)] = number
        self._keep.append(value)
        self.new.append(None)
        self.new[number] = self.state(value, where, depth)
        return {"$new": number}

    def state(self, value: Any, where: str, depth: int = 0) -> Any:
        """What a mutable object holds (not the object itself): for updates and new objects."""
        if isinstance(value, (list, dict, set)):
            self._spend(0, len(value), where, f"a {type(value).__name__} of {len(value):,} items")
        if isinstance(value, list):
            return {"list": [self.value(item, where, depth) for item in value]}
        if isinstance(value, dict):
            return {
                "dict": [
                    [self.value(k, where, depth), self.value(v, f"{where}[{k!r:.40}]", depth)]
                    for k, v in value.items()
                ]
            }
        if isinstance(value, set):
            return {"set": [self.value(item, where, depth) for item in value]}
        if isinstance(value, bytearray):
            self._spend(len(value), 1, where, "a bytearray")
            self.blobs.append(bytes(value))
            return {"bytearray": len(self.blobs) - 1}
        torch = _torch()
        if torch is not None and isinstance(value, torch.Tensor):
            self._spend(value.numel() * value.element_size(), 1, where, "a tensor")
            spec = tensor_spec(value, self.blobs)
            grad = value.grad if value.is_leaf else None
            spec["requires_grad"] = bool(value.requires_grad)
            spec["grad"] = None if grad is None else self.value(grad, f"{where}.grad", depth)
            return {"tensor": spec}
        numpy = _numpy()
        if numpy is not None and isinstance(value, numpy.ndarray):
            self._spend(int(value.nbytes), 1, where, "a NumPy array")
            return {"ndarray": array_spec(value, self.blobs)}
        attrs = getattr(value, "__dict__", None)
        if isinstance(attrs, dict):
            self._spend(0, len(attrs), where, f"an object of {len(attrs):,} attributes")
            return {
                "attrs": [
                    [str(name), self.value(item, f"{where}.{name}", depth)]
                    for name, item in attrs.items()
                ]
            }
        raise CannotCross(f"{where} holds {describe(value)}")


def describe(value: Any) -> str:
    """What a value is, in a few words, for a message."""
    kind = type(value)
    if isinstance(value, (types.GeneratorType, types.AsyncGeneratorType)):
        return "a generator"
    if isinstance(value, types.CoroutineType):
        return "a coroutine"
    if isinstance(value, types.FunctionType) and value.__name__ == "<lambda>":
        return "a lambda"
    if isinstance(value, (types.FunctionType, types.MethodType, types.BuiltinFunctionType)):
        return f"a function ({getattr(value, '__qualname__', '?')})"
    if isinstance(value, types.ModuleType):
        return f"a module ({value.__name__})"
    if isinstance(value, io.IOBase):
        return "an open file"
    return f"an object of class {kind.__module__}.{kind.__qualname__} that the test did not send"


# -- the test's side: reading the answer ------------------------------------------------


class Decoder:
    """The candidate's answer as values: only builtins, arrays, tensors and the test's
    own objects come out. Anything else raises `Malformed`."""

    def __init__(self, sent: Sent, header: dict[str, Any], blobs: list[bytes]) -> None:
        self.sent = sent
        self.blobs = blobs
        raw_new = header.get("new", [])
        if not isinstance(raw_new, list):
            raise Malformed("'new' is not a list")
        self._raw_new = raw_new
        self._new: dict[int, Any] = {}
        self._building: set[int] = set()

    def value(self, node: Any, depth: int = 0) -> Any:
        if depth > DEPTH_CAP:
            raise Malformed(f"a value nested more than {DEPTH_CAP} levels deep")
        if node is None or isinstance(node, (bool, str)):
            return node
        if type(node) is int:
            return node
        if type(node) is float:
            return node
        if isinstance(node, list):
            raise Malformed("a bare list (lists are numbered objects)")
        if not isinstance(node, dict) or len(node) != 1:
            raise Malformed(f"not a value: {str(node)[:80]!r}")
        ((tag, body),) = node.items()
        return self._tagged(tag, body, depth + 1)

    def _tagged(self, tag: str, body: Any, depth: int) -> Any:
        if tag == "$t":
            return self.sent.arrays[_index(body, len(self.sent.arrays), "array")]
        if tag == "$ref":
            if type(body) is not int or body not in self.sent.objects:
                raise Malformed(f"a reference to nothing the test sent ({body!r:.40})")
            return self.sent.objects[body]
        if tag == "$new":
            return self._new_object(_index(body, len(self._raw_new), "new object"), depth)
        if tag == "$int":
            if not isinstance(body, str) or len(body) > 4000:
                raise Malformed("a bad $int")
            try:
                return int(body)
            except ValueError:
                raise Malformed("a bad $int") from None
        if tag == "$float":
            if body not in ("nan", "inf", "-inf"):
                raise Malformed("a bad $float")
            return float(body)
        if tag == "$complex":
            real, imag = (self.value(part, depth) for part in _pair(body, 2))
            if not all(type(part) in (int, float) for part in (real, imag)):
                raise Malformed("a bad $complex")
            return complex(real, imag)
        if tag == "$bytes":
            if not isinstance(body, str):
                raise Malformed("bad $bytes")
            try:
                data = binascii.a2b_base64(body.encode("ascii"))
            except (ValueError, UnicodeEncodeError):
                raise Malformed("bad $bytes") from None
            if binascii.b2a_base64(data, newline=False).decode("ascii") != body:
                raise Malformed("bad $bytes")  # only the one spelling b2a_base64 writes
            return data
        if tag in ("$tuple", "$frozenset"):
            if not isinstance(body, list):
                raise Malformed(f"bad {tag}")
            items = [self.value(item, depth) for item in body]
            return tuple(items) if tag == "$tuple" else frozenset(_hashables(items))
        if tag == "$slice":
            start, stop, step = (self.value(part, depth) for part in _pair(body, 3))
            return slice(start, stop, step)
        if tag == "$range":
            numbers = _pair(body, 3)
            if not all(type(n) is int for n in numbers):
                raise Malformed("bad $range")
            return range(*numbers)
        if tag == "$ellipsis":
            return Ellipsis
        if tag == "$npscalar":
            return decode_array(_spec(body), self.blobs)[()]
        if tag == "$npdtype":
            if body not in _NUMPY_DTYPES:
                raise Malformed("bad $npdtype")
            return _require("numpy").dtype(body)
        if tag == "$size":
            if not isinstance(body, list) or not all(type(n) is int for n in body):
                raise Malformed("bad $size")
            return _require("torch").Size(body)
        if tag == "$dtype":
            if body not in _TORCH_DTYPES:
                raise Malformed("bad $dtype")
            return getattr(_require("torch"), body)
        if tag == "$device":
            if not _is_device(body):
                raise Malformed("bad $device")
            return _require("torch").device(body)
        raise Malformed(f"an unknown tag {tag[:40]!r}")

    def _new_object(self, number: int, depth: int) -> Any:
        if number in self._new:
            return self._new[number]
        if number in self._building:
            raise Malformed("a new object that contains itself before it exists")
        self._building.add(number)
        state = self._raw_new[number]
        kind, body = _state_parts(state)
        obj: Any
        if kind == "list":
            obj = []
            self._new[number] = obj
            obj.extend(self.value(item, depth) for item in _list(body))
        elif kind == "dict":
            obj = {}
            self._new[number] = obj
            obj.update(self.pairs(body, depth))
        elif kind == "set":
            obj = set()
            self._new[number] = obj
            obj.update(_hashables([self.value(item, depth) for item in _list(body)]))
        elif kind == "bytearray":
            obj = bytearray(self.blobs[_index(body, len(self.blobs), "blob")])
        elif kind == "tensor":
            obj = self.tensor(body, depth)
        elif kind == "ndarray":
            obj = decode_array(_spec(body), self.blobs)
        else:
            raise Malformed(f"a new object of kind {kind[:40]!r}")
        self._new[number] = obj
        self._building.discard(number)
        return obj

    def pairs(self, body: Any, depth: int) -> list[tuple[Any, Any]]:
        pairs = []
        for pair in _list(body):
            key, value = _pair(pair, 2)
            decoded = self.value(key, depth)
            _hashables([decoded])
            pairs.append((decoded, self.value(value, depth)))
        return pairs

    def tensor(self, body: Any, depth: int) -> Any:
        spec = _spec(body)
        tensor = decode_tensor(spec, self.blobs, requires_grad=spec.get("requires_grad"))
        grad = spec.get("grad")
        if grad is not None:
            value = self.value(grad, depth)
            _set_grad(tensor, value)
        return tensor


def _set_grad(tensor: Any, grad: Any) -> None:
    torch = _require("torch")
    if grad is not None and not isinstance(grad, torch.Tensor):
        raise Malformed("a gradient that is not a tensor")
    try:
        tensor.grad = grad
    except (RuntimeError, TypeError) as error:
        raise Malformed(f"a gradient that does not fit its tensor ({error})") from None


def apply_updates(decoder: Decoder, updates: Any) -> None:
    """Put what the call changed into the test's own objects, in place."""
    if not isinstance(updates, list):
        raise Malformed("'updates' is not a list")
    torch = _torch()
    numpy = _numpy()
    # Arrays first (their data), then the containers and objects that hold them.
    ordered = sorted(_list(updates), key=lambda u: 0 if _pair(u, 2)[0] == "t" else 1)
    for update in ordered:
        where, state = _pair(update, 2)
        kind, body = _state_parts(state)
        if isinstance(where, list) and len(where) == 2 and where[0] == "t":
            target = decoder.sent.arrays[_index(where[1], len(decoder.sent.arrays), "array")]
            if kind == "tensor" and torch is not None and isinstance(target, torch.Tensor):
                _update_tensor(decoder, target, body)
            elif kind == "ndarray" and numpy is not None and isinstance(target, numpy.ndarray):
                new = decode_array(_spec(body), decoder.blobs)
                if new.shape != target.shape or new.dtype != target.dtype:
                    raise Malformed("an array whose shape or dtype changed in place")
                if not target.flags.writeable:
                    raise Malformed("a change to a read-only array")
                target[...] = new
            else:
                raise Malformed(f"an update of kind {kind!r:.20} for an array")
            continue
        if not isinstance(where, list) or len(where) != 2 or where[0] != "o":
            raise Malformed("an update of something the test did not send")
        index = where[1]
        if type(index) is not int or index not in decoder.sent.tracked_set:
            raise Malformed("an update of something the test did not send by value")
        target = decoder.sent.objects[index]
        _update_object(decoder, target, kind, body)


def _update_tensor(decoder: Decoder, target: Any, body: Any) -> None:
    torch = _require("torch")
    spec = _spec(body)
    new = decode_tensor(spec, decoder.blobs)
    with torch.no_grad():
        if new.shape == target.shape and new.dtype == target.dtype:
            target.copy_(new)
        else:
            target.data = new
    wants_grad = spec.get("requires_grad")
    if type(wants_grad) is bool and target.is_leaf and wants_grad != target.requires_grad:
        if wants_grad and not (target.is_floating_point() or target.is_complex()):
            raise Malformed("requires_grad on a tensor that cannot have one")
        target.requires_grad_(wants_grad)
    if "grad" in spec and target.is_leaf:
        grad = spec["grad"]
        _set_grad(target, None if grad is None else decoder.value(grad))


def _update_object(decoder: Decoder, target: Any, kind: str, body: Any) -> None:
    if kind == "list" and isinstance(target, list):
        target[:] = [decoder.value(item) for item in _list(body)]
    elif kind == "dict" and isinstance(target, dict):
        pairs = decoder.pairs(body, 0)
        target.clear()
        target.update(pairs)
    elif kind == "set" and isinstance(target, set):
        items = _hashables([decoder.value(item) for item in _list(body)])
        target.clear()
        target.update(items)
    elif kind == "bytearray" and isinstance(target, bytearray):
        target[:] = decoder.blobs[_index(body, len(decoder.blobs), "blob")]
    elif kind == "attrs":
        namespace = getattr(target, "__dict__", None)
        if not isinstance(namespace, dict):
            raise Malformed("attributes for an object that has none")
        changes = _list(body)
        if not isinstance(changes, list) or len(changes) != 2:
            raise Malformed("bad attribute changes")
        assigned, removed = (_list(part) for part in changes)
        values = {}
        for pair in assigned:
            name, value = _pair(pair, 2)
            if not isinstance(name, str):
                raise Malformed("an attribute name that is not a string")
            values[name] = decoder.value(value)
        for name in removed:
            if not isinstance(name, str):
                raise Malformed("an attribute name that is not a string")
            namespace.pop(name, None)
        namespace.update(values)
    else:
        raise Malformed(f"an update of kind {kind!r:.20} for a {type(target).__name__}")


def apply_random_states(answer: Any, sent_states: dict[str, Any], blobs: list[bytes]) -> None:
    """Advance this process's generators as the call advanced the candidate's."""
    import random

    if not isinstance(answer, dict):
        raise Malformed("'random' is not an object")
    version, internal, gauss = _pair(answer.get("random"), 3)
    if (
        version != sent_states["random"][0]
        or not isinstance(internal, list)
        or len(internal) != len(sent_states["random"][1])
        or not all(type(n) is int and 0 <= n < 1 << 32 for n in internal)
        or not (gauss is None or type(gauss) is float)
    ):
        raise Malformed("a bad state of Python's random generator")
    numpy = _numpy()
    torch = _torch()
    numpy_state = None
    if "numpy" in sent_states:
        name, keys, pos, has_gauss, cached = _pair(answer.get("numpy"), 5)
        array = decode_array(_spec(keys), blobs)
        if (
            name != "MT19937"
            or array.dtype != numpy.uint32
            or array.shape != (624,)
            or type(pos) is not int
            or not 0 <= pos <= 624
            or type(has_gauss) is not int
            or type(cached) is not float
        ):
            raise Malformed("a bad state of NumPy's random generator")
        numpy_state = (name, array, pos, has_gauss, cached)
    torch_state = None
    if "torch" in sent_states:
        torch_state = decode_tensor(_spec(answer.get("torch")), blobs)
        wanted = sent_states["torch"]
        if torch_state.dtype != torch.uint8 or torch_state.shape != wanted.shape:
            raise Malformed("a bad state of torch's random generator")
    random.setstate((version, tuple(internal), gauss))
    if numpy_state is not None:
        numpy.random.set_state(numpy_state)
    if torch_state is not None:
        torch.set_rng_state(torch_state)


def encode_random_states(encoder: Encoder) -> dict[str, Any]:
    """The candidate's generators after the call, as data."""
    import random

    version, internal, gauss = random.getstate()
    states: dict[str, Any] = {"random": [version, list(internal), gauss]}
    numpy = _numpy()
    if numpy is not None:
        name, keys, pos, has_gauss, cached = numpy.random.get_state()
        states["numpy"] = [name, array_spec(keys, encoder.blobs), pos, has_gauss, float(cached)]
    torch = _torch()
    if torch is not None:
        states["torch"] = tensor_spec(torch.get_rng_state(), encoder.blobs)
    return states


# -- arrays and tensors from bytes (both sides) -----------------------------------------


def _checked_shape(spec: dict[str, Any], item_size: int, blobs: list[bytes]) -> tuple[Any, ...]:
    shape = spec.get("shape")
    if not isinstance(shape, list) or len(shape) > 64:
        raise Malformed("a bad shape")
    count = 1
    for size in shape:
        if type(size) is not int or size < 0:
            raise Malformed("a bad shape")
        count *= size
    blob = blobs[_index(spec.get("blob"), len(blobs), "blob")]
    if count * item_size != len(blob):
        raise Malformed(f"{len(blob)} bytes for a shape of {count} items of {item_size}")
    return (tuple(shape), blob)


def decode_array(spec: dict[str, Any], blobs: list[bytes]) -> Any:
    numpy = _require("numpy")
    name = spec.get("dtype")
    if name not in _NUMPY_DTYPES:
        raise Malformed(f"a NumPy dtype that cannot cross ({str(name)[:20]!r})")
    dtype = numpy.dtype(name)
    shape, blob = _checked_shape(spec, dtype.itemsize, blobs)
    return numpy.frombuffer(blob, dtype=dtype).reshape(shape).copy()


def decode_tensor(
    spec: dict[str, Any], blobs: list[bytes], *, parameter: bool = False, requires_grad: Any = False
) -> Any:
    torch = _require("torch")
    name = spec.get("dtype")
    if name not in _TORCH_DTYPES:
        raise Malformed(f"a torch dtype that cannot cross ({str(name)[:20]!r})")
    dtype = getattr(torch, name)
    item_size = torch.empty((), dtype=dtype).element_size()
    shape, blob = _checked_shape(spec, item_size, blobs)
    if blob:
        tensor = torch.frombuffer(bytearray(blob), dtype=torch.uint8).view(dtype).reshape(shape)
    else:
        tensor = torch.empty(shape, dtype=dtype)
    device = spec.get("device", "cpu")
    if not _is_device(device):
        raise Malformed("a bad device")
    if device != "cpu":
        try:
            tensor = tensor.to(device)
        except (RuntimeError, AssertionError) as error:
            raise Malformed(f"a tensor on {device}, which this process lacks ({error})") from None
    wants_grad = requires_grad is True and (tensor.is_floating_point() or tensor.is_complex())
    if parameter:
        return torch.nn.Parameter(tensor, requires_grad=wants_grad)
    return tensor.requires_grad_(True) if wants_grad else tensor


def _require(name: str) -> Any:
    """numpy or torch, loaded if this process has not yet (the image's own library)."""
    module = sys.modules.get(name)
    if module is None:
        import importlib

        try:
            module = importlib.import_module(name)
        except ImportError:
            raise Malformed(f"a {name} value, but {name} is not installed here") from None
    return module


def _index(value: Any, size: int, what: str) -> int:
    if type(value) is not int or not 0 <= value < size:
        raise Malformed(f"a bad {what} number ({str(value)[:20]})")
    return value


def _list(value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise Malformed(f"a list was expected, not {type(value).__name__}")
    return value


def _pair(value: Any, size: int) -> list[Any]:
    items = _list(value)
    if len(items) != size:
        raise Malformed(f"{size} items were expected, not {len(items)}")
    return items


def _spec(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise Malformed("an array or tensor that is not described")
    return value


def _state_parts(state: Any) -> tuple[str, Any]:
    if not isinstance(state, dict) or len(state) != 1:
        raise Malformed("a bad object state")
    ((kind, body),) = state.items()
    return str(kind), body


def _hashables(items: list[Any]) -> list[Any]:
    for item in items:
        try:
            hash(item)
        except TypeError:
            raise Malformed("an unhashable key or set member") from None
    return items
