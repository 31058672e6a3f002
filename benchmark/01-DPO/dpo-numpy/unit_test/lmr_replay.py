"""The replay fixture format: values as JSON with a few tags, loadable without running code.

Replay-mode unit tests (templates/unit_test.py.tmpl) keep the recorded INPUTS of the
goal function in the repository and its EXPECTED outputs outside it; in the container
the candidate's outputs are written in this format and compared on the host, where no
candidate code ever ran. So loading must never execute anything: no pickle, only JSON
plus these tags (``{"$tag": ...}``): ``$float`` (nan, inf, -inf), ``$tuple``, ``$dict``
(keys that are not plain strings), ``$set`` and ``$frozenset``, ``$ordereddict`` and
``$defaultdict`` (its default made by a builtin type), ``$bytes`` (base64), ``$complex``,
``$ndarray`` and ``$npscalar`` (NumPy: dtype, shape, little-endian bytes in base64;
numeric and bool dtypes only), ``$tensor`` (a torch tensor, stored as its array, with its
gradient and whether it is a parameter), ``$object`` (an instance's class and
``__dict__``; only inputs may be rebuilt into objects, and only when the caller allows
it), ``$ref`` (the same tensor, array or object met again: an optimizer's state is keyed
by the very parameters its groups hold), ``$function`` (a function an object holds, by
where it is defined: ``module:qualname`` for one its module names, or the module, the
qualified name and the line of a lambda or local function without a closure, such as
``self.lora_dropout = lambda x: x``; only inputs are rebuilt into functions, from the
module's own source, never from the document) and ``$unstorable`` (a value after a call
that could not be stored, said instead of failing the whole output).

A call changes more than what it returns: an optimizer's ``step`` updates its
parameters in place and returns ``None``. A fixture's document lists the inputs the
golden call changed (``"watch"``), and an output's document carries those inputs as the
call left them (``"changed"``); `mismatches` compares both.

This one file is used on both sides: the toolkit imports it, and the authoring flow
copies it beside each replay test as ``unit_test/lmr_replay.py`` (standard library, plus
NumPy when the values hold arrays). Keep it free of lmr_author imports.
"""

from __future__ import annotations

import base64
import collections
import hashlib
import importlib
import inspect
import json
import math
import reprlib
import sys
import types
from typing import Any

FORMAT = "lmr-replay/1"
_TAG = "$"
#: NumPy dtype kinds that may cross: bool, signed, unsigned, float, complex.
_KINDS = "biufc"
#: What may make a defaultdict's missing values (a lambda cannot be stored).
_FACTORIES = {
    "dict": dict,
    "list": list,
    "set": set,
    "int": int,
    "float": float,
    "str": str,
    "tuple": tuple,
}
_DEPTH_CAP = 100


class CodecError(ValueError):
    """A value that this format cannot hold, or a document that is not in it.

    ``where`` is the path of the value inside what was given (``args[1].state``), filled
    in on the way out of the encoder."""

    def __init__(self, message: str, where: str = "") -> None:
        super().__init__(message)
        self.reason = message
        self.where = where

    def __str__(self) -> str:
        return f"{self.reason} (at {self.where})" if self.where else self.reason

    def inside(self, step: str) -> CodecError:
        """The same error, one level further out (``step`` is ``[0]``, ``['key']``, ``.name``)."""
        return CodecError(self.reason, step + self.where)


class EncodedObject:
    """An instance read without rebuilding it: its class name and its state."""

    def __init__(self, type_name: str, state: Any) -> None:
        self.type_name = type_name
        self.state = state

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, EncodedObject)
            and other.type_name == self.type_name
            and other.state == self.state
        )

    __hash__ = None  # type: ignore[assignment]  # unhashable: keys made of it stay pairs

    @reprlib.recursive_repr("<...>")
    def __repr__(self) -> str:
        return f"<{self.type_name} {self.state!r}>"


class KeyValuePairs(list):  # type: ignore[type-arg]
    """A mapping read without rebuilding its keys (arrays, objects): its (key, value) pairs
    in order. Only values read for comparison come back this way."""

    def __repr__(self) -> str:
        return "{" + ", ".join(f"{key!r}: {value!r}" for key, value in self) + "}"


class Unstorable:
    """An input that, after the call, held something this format cannot store."""

    def __init__(self, reason: str) -> None:
        self.reason = reason

    def __repr__(self) -> str:
        return f"<cannot be stored: {self.reason}>"


def _numpy() -> Any:
    try:
        import numpy
    except ImportError:
        return None
    return numpy


def _torch_module_of(value: Any) -> Any:
    """torch, when ``value`` is a tensor (torch is never imported for other values)."""
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(value, torch.Tensor):
        return torch
    return None


def _findable(kind: type) -> bool:
    """Whether ``kind`` can be found again by its module and name: a function, a class made
    inside a function or in the driver cannot, so its instances are not stored."""
    if kind.__module__ == "__main__" or "<locals>" in kind.__qualname__:
        return False
    owner: Any = sys.modules.get(kind.__module__)
    for part in kind.__qualname__.split("."):
        owner = getattr(owner, part, None)
    return owner is kind


_FUNCTION_TYPES = (types.FunctionType, types.BuiltinFunctionType)


def _function_reference(function: Any) -> Any:
    """Where ``function`` is defined: ``module:qualname`` when its module names it, else
    (a lambda or local function) its module, qualified name and line; a closure, or a
    function of no importable module, cannot be stored."""
    module = getattr(function, "__module__", None)
    qualname = getattr(function, "__qualname__", "")
    if not isinstance(module, str) or module == "__main__" or module not in sys.modules:
        raise CodecError(f"the function {qualname or function!r} belongs to no module")
    owner: Any = sys.modules[module]
    for part in qualname.split("."):
        owner = getattr(owner, part, None)
    if owner is function:
        return f"{module}:{qualname}"
    code = getattr(function, "__code__", None)
    if code is None or getattr(function, "__closure__", None):
        raise CodecError(f"the function {qualname} is a closure (it cannot be made again)")
    # Two lambdas of one line are told apart by their bytecode.
    return {
        "module": module,
        "qualname": qualname,
        "line": code.co_firstlineno,
        "code": _code_digest(code),
    }


def _code_digest(code: types.CodeType) -> str:
    """A short fingerprint of what a code object does (its bytecode, constants, names)."""
    text = repr((code.co_code, code.co_consts, code.co_names))
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()[:16]


def _code_objects(code: types.CodeType, prefix: str = "") -> Any:
    """(qualified name, code) of every function and class body compiled in ``code``."""
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            name = prefix + const.co_name
            yield name, const
            inner = name + (".<locals>." if const.co_flags & inspect.CO_OPTIMIZED else ".")
            yield from _code_objects(const, inner)


def _rebuild_function(reference: Any) -> Any:
    """The function a `_function_reference` names, made again from its module's source."""
    if isinstance(reference, str):
        module_name, _, qualname = reference.partition(":")
        owner: Any = importlib.import_module(module_name)
        for part in qualname.split("."):
            owner = getattr(owner, part)
        if not callable(owner):
            raise CodecError(f"{reference} is not a function")
        return owner
    spec = _spec(reference)
    module = importlib.import_module(str(spec.get("module")))
    qualname, line = str(spec.get("qualname")), spec.get("line")
    path = getattr(module, "__file__", None)
    if not isinstance(path, str) or not path.endswith(".py"):
        raise CodecError(f"the source of {qualname} cannot be read")
    with open(path, encoding="utf-8") as handle:
        compiled = compile(handle.read(), path, "exec", dont_inherit=True)
    found = [code for name, code in _code_objects(compiled) if name == qualname]
    for key, value in (("code", spec.get("code")), ("line", line)):
        if len(found) > 1:
            same = [
                code
                for code in found
                if (_code_digest(code) if key == "code" else code.co_firstlineno) == value
            ]
            found = same or found
    found = found[:1]
    if not found or found[0].co_freevars:
        raise CodecError(f"no function {qualname} in {path}")
    function = types.FunctionType(found[0], vars(module), found[0].co_name)
    function.__qualname__ = qualname
    return function


class _Encoder:
    """One value's encoding: tensors, arrays and objects met twice become ``$ref``."""

    def __init__(self, allow_objects: bool) -> None:
        self.allow_objects = allow_objects
        #: id -> (the value, kept alive so its id is not reused; its tag body).
        self.seen: dict[int, tuple[Any, dict[str, Any]]] = {}
        self.refs = 0

    def encode(self, value: Any, depth: int = 0) -> Any:
        if depth > _DEPTH_CAP:
            raise CodecError(f"nested more than {_DEPTH_CAP} levels deep")
        if value is None or isinstance(value, (bool, str)):
            return value
        if isinstance(value, int):
            return int(value)
        if isinstance(value, float):
            if math.isnan(value) or math.isinf(value):
                return {"$float": repr(float(value))}
            return float(value)
        if isinstance(value, complex):
            return {"$complex": [self.encode(value.real), self.encode(value.imag)]}
        if isinstance(value, (bytes, bytearray)):
            return {"$bytes": base64.b64encode(bytes(value)).decode("ascii")}
        deeper = depth + 1
        if isinstance(value, list):
            return [self._at(f"[{n}]", item, deeper) for n, item in enumerate(value)]
        if isinstance(value, tuple):
            return {"$tuple": [self._at(f"[{n}]", item, deeper) for n, item in enumerate(value)]}
        if isinstance(value, (set, frozenset)):
            tag = "$frozenset" if isinstance(value, frozenset) else "$set"
            return {tag: [self._at("{…}", item, deeper) for item in value]}
        if isinstance(value, dict):
            return self._mapping(value, deeper)
        if id(value) in self.seen:
            return self._ref(value)
        torch = _torch_module_of(value)
        if torch is not None:
            return self._remember(value, "$tensor", self._tensor(torch, value, deeper))
        numpy = _numpy()
        if numpy is not None and isinstance(value, (numpy.ndarray, numpy.generic)):
            tag = "$ndarray" if isinstance(value, numpy.ndarray) else "$npscalar"
            return self._remember(value, tag, _array_spec(numpy, value))
        kind = type(value)
        if self.allow_objects and isinstance(value, _FUNCTION_TYPES):
            return {"$function": _function_reference(value)}
        if self.allow_objects and hasattr(value, "__dict__") and not isinstance(value, type):
            if not _findable(kind):
                raise CodecError(f"a {kind.__qualname__} cannot be stored")
            body: dict[str, Any] = {"type": f"{kind.__module__}:{kind.__qualname__}"}
            tagged = self._remember(value, "$object", body)
            # Remembered before its state: an object holding itself is a $ref, not a loop.
            body["state"] = self._mapping(vars(value), deeper, attributes=True)
            return tagged
        raise CodecError(f"a value of type {kind.__name__} cannot be stored")

    def _at(self, step: str, value: Any, depth: int) -> Any:
        try:
            return self.encode(value, depth)
        except CodecError as error:
            raise error.inside(step) from None

    def _mapping(self, value: dict[Any, Any], depth: int, *, attributes: bool = False) -> Any:
        def step(key: Any) -> str:
            return f".{key}" if attributes else f"[{key!r}]"

        if all(isinstance(key, str) and not key.startswith(_TAG) for key in value):
            plain: Any = {key: self._at(step(key), item, depth) for key, item in value.items()}
        else:
            plain = {
                "$dict": [
                    [self._at(step(key), key, depth), self._at(step(key), item, depth)]
                    for key, item in value.items()
                ]
            }
        if attributes or type(value) is dict:
            return plain
        if isinstance(value, collections.defaultdict):
            factory = value.default_factory
            name = getattr(factory, "__name__", "")
            if factory is None or _FACTORIES.get(name) is factory:
                return {"$defaultdict": {"factory": name or None, "items": plain}}
        elif isinstance(value, collections.OrderedDict):
            return {"$ordereddict": plain}
        return plain  # other mappings are stored as the dict they hold

    def _tensor(self, torch: Any, value: Any, depth: int) -> dict[str, Any]:
        numpy = _numpy()
        if numpy is None:
            raise CodecError("NumPy is needed to store tensors")
        body = _array_spec(numpy, value.detach().cpu().numpy())
        if isinstance(value, torch.nn.Parameter):
            body["parameter"] = True
        if value.is_leaf and value.requires_grad:
            body["requires_grad"] = True
            if value.grad is not None:  # what an optimizer's step reads
                body["grad"] = self._at(".grad", value.grad, depth)
        return body

    def _remember(self, value: Any, tag: str, body: dict[str, Any]) -> dict[str, Any]:
        self.seen[id(value)] = (value, body)
        return {tag: body}

    def _ref(self, value: Any) -> dict[str, Any]:
        _, body = self.seen[id(value)]
        if "id" not in body:
            self.refs += 1
            body["id"] = self.refs
        return {"$ref": body["id"]}


def _array_spec(numpy: Any, value: Any) -> dict[str, Any]:
    array = numpy.asarray(value)
    if array.dtype.kind not in _KINDS:
        raise CodecError(f"NumPy dtype {array.dtype} cannot be stored (numbers only)")
    little = array.astype(array.dtype.newbyteorder("<"), copy=False)
    data = base64.b64encode(numpy.ascontiguousarray(little).tobytes()).decode("ascii")
    return {"dtype": little.dtype.str, "shape": list(array.shape), "data": data}


def encode(value: Any, *, allow_objects: bool = False) -> Any:
    """``value`` as a JSON-able structure; raise `CodecError` for what cannot cross."""
    return _Encoder(allow_objects).encode(value)


class _Decoder:
    """One document's values; ``$ref`` numbers name what was decoded earlier in it."""

    def __init__(self, allow_objects: bool) -> None:
        self.allow_objects = allow_objects
        self.known: dict[int, Any] = {}

    def decode(self, data: Any, depth: int = 0) -> Any:
        if depth > _DEPTH_CAP:
            raise CodecError(f"nested more than {_DEPTH_CAP} levels deep")
        if data is None or isinstance(data, (bool, int, float, str)):
            return data
        deeper = depth + 1
        if isinstance(data, list):
            return [self.decode(item, deeper) for item in data]
        if not isinstance(data, dict):
            raise CodecError(f"unexpected JSON value {type(data).__name__}")
        if len(data) == 1:
            ((key, body),) = data.items()
            if key.startswith(_TAG):
                return self._tagged(key, body, deeper)
        return {key: self.decode(item, deeper) for key, item in data.items()}

    def _tagged(self, tag: str, body: Any, depth: int) -> Any:
        if tag == "$float":
            if body not in ("nan", "inf", "-inf"):
                raise CodecError(f"bad $float {body!r}")
            return float(body)
        if tag == "$tuple":
            return tuple(self.decode(_list(body), depth))
        if tag in ("$set", "$frozenset"):
            items = self.decode(_list(body), depth)
            try:
                return set(items) if tag == "$set" else frozenset(items)
            except TypeError:  # arrays or objects read for comparison: keep them in order
                return items
        if tag == "$dict":
            return self._pairs(body, depth)
        if tag == "$ordereddict":
            inner = self.decode(body, depth)
            if not isinstance(inner, dict) or not self.allow_objects:
                return inner
            return collections.OrderedDict(inner)
        if tag == "$defaultdict":
            spec = _spec(body)
            inner = self.decode(spec.get("items"), depth)
            factory = spec.get("factory")
            if factory is not None and factory not in _FACTORIES:
                raise CodecError(f"bad $defaultdict factory {factory!r}")
            if not isinstance(inner, dict) or not self.allow_objects:
                return inner
            return collections.defaultdict(_FACTORIES[factory] if factory else None, inner)
        if tag == "$bytes":
            return base64.b64decode(str(body), validate=True)
        if tag == "$complex":
            real, imag = _list(body)
            return complex(self.decode(real), self.decode(imag))
        if tag == "$ref":
            if not isinstance(body, int) or body not in self.known:
                raise CodecError(f"$ref {body!r} names nothing read before it")
            return self.known[body]
        if tag == "$unstorable":
            return Unstorable(str(body))
        if tag in ("$ndarray", "$npscalar"):
            return self._known(body, _decode_array(tag, body))
        if tag == "$tensor":
            return self._tensor(_spec(body), depth)
        if tag == "$object":
            return self._object(_spec(body), depth)
        if tag == "$function":
            if not isinstance(body, (str, dict)):
                raise CodecError("bad $function")
            if not self.allow_objects:
                return EncodedObject("function", body)
            return _rebuild_function(body)
        raise CodecError(f"unknown tag {tag}")

    def _known(self, body: Any, value: Any) -> Any:
        number = body.get("id") if isinstance(body, dict) else None
        if number is not None:
            if not isinstance(number, int) or number in self.known:
                raise CodecError(f"bad or repeated id {number!r}")
            self.known[number] = value
        return value

    def _pairs(self, body: Any, depth: int) -> Any:
        pairs = [_list(pair) for pair in _list(body)]
        if any(len(pair) != 2 for pair in pairs):
            raise CodecError("$dict entries are [key, value] pairs")
        decoded = [(_hashable(self.decode(k, depth)), self.decode(v, depth)) for k, v in pairs]
        try:
            return dict(decoded)
        except TypeError:  # keys that are arrays or objects read for comparison
            return KeyValuePairs(decoded)

    def _tensor(self, body: dict[str, Any], depth: int) -> Any:
        array = _decode_array("$ndarray", body)
        value: Any = array
        torch = None
        if self.allow_objects:
            try:
                torch = importlib.import_module("torch")
            except ImportError:
                torch = None
        if torch is not None:
            value = torch.from_numpy(array.copy())
            if body.get("parameter") is True:
                value = torch.nn.Parameter(value, requires_grad=body.get("requires_grad") is True)
            elif body.get("requires_grad") is True and value.is_floating_point():
                value.requires_grad_(True)
        self._known(body, value)
        if "grad" in body:
            grad = self.decode(body["grad"], depth)
            if torch is not None and isinstance(grad, torch.Tensor) and value.requires_grad:
                value.grad = grad
        return value

    def _object(self, body: dict[str, Any], depth: int) -> Any:
        type_name = str(body.get("type", ""))
        if not self.allow_objects:
            shell = self._known(body, EncodedObject(type_name, None))
            shell.state = self.decode(body.get("state"), depth)
            return shell
        module_name, _, qualname = type_name.partition(":")
        owner: Any = importlib.import_module(module_name)
        for part in qualname.split("."):
            owner = getattr(owner, part)
        instance = self._known(body, owner.__new__(owner))
        state = self.decode(body.get("state"), depth)
        if not isinstance(state, dict):
            raise CodecError(f"the state of a {qualname} is not a mapping")
        instance.__dict__.update(state)
        return instance


def decode(data: Any, *, allow_objects: bool = False) -> Any:
    """The value ``encode`` stored. Objects come back as `EncodedObject` unless
    ``allow_objects`` (only for inputs from the task's own repository)."""
    return _Decoder(allow_objects).decode(data)


def _list(value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise CodecError("expected a JSON list")
    return value


def _spec(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise CodecError("expected a JSON object")
    return value


def _hashable(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_hashable(item) for item in value)
    return value


def _decode_array(tag: str, body: Any) -> Any:
    numpy = _numpy()
    if numpy is None:
        raise CodecError("NumPy is needed to read arrays")
    if not isinstance(body, dict):
        raise CodecError(f"bad {tag}")
    dtype = numpy.dtype(str(body.get("dtype")))
    if dtype.kind not in _KINDS or dtype.hasobject:
        raise CodecError(f"dtype {dtype} is not allowed")
    shape = tuple(int(n) for n in _list(body.get("shape", [])))
    if any(n < 0 for n in shape):
        raise CodecError("negative array dimension")
    raw = base64.b64decode(str(body.get("data", "")), validate=True)
    count = 1
    for n in shape:
        count *= n
    if count * dtype.itemsize != len(raw):
        raise CodecError("array data does not match its dtype and shape")
    array = numpy.frombuffer(raw, dtype=dtype).reshape(shape).astype(dtype.newbyteorder("="))
    return array if tag == "$ndarray" else array[()]


def document(encoded: Any, **extra: Any) -> str:
    """An already encoded value as a document (a fixture adds its ``watch`` list)."""
    return json.dumps({"format": FORMAT, "value": encoded, **extra})


def dumps(value: Any, *, allow_objects: bool = False, changed: dict[str, Any] | None = None) -> str:
    """``value`` as a document; ``changed`` (input name -> that input after the call) is
    stored beside it, each input on its own so that one that cannot be stored is said."""
    extra: dict[str, Any] = {}
    if changed:
        extra["changed"] = {}
        for name, after in changed.items():
            try:
                extra["changed"][name] = encode(after, allow_objects=True)
            except CodecError as error:
                extra["changed"][name] = {"$unstorable": str(error)}
    return document(encode(value, allow_objects=allow_objects), **extra)


def _document(text: str | bytes) -> dict[str, Any]:
    try:
        parsed = json.loads(text)
    except (ValueError, RecursionError) as error:
        raise CodecError(f"not JSON: {error}") from None
    if not isinstance(parsed, dict) or parsed.get("format") != FORMAT:
        raise CodecError(f"not an {FORMAT} document")
    return parsed


def _decoded(data: Any, allow_objects: bool) -> Any:
    try:
        return decode(data, allow_objects=allow_objects)
    except RecursionError:
        raise CodecError("nested too deeply") from None
    except (TypeError, ValueError, AttributeError, ImportError) as error:
        if isinstance(error, CodecError):
            raise
        raise CodecError(str(error)) from None


def loads(text: str | bytes, *, allow_objects: bool = False) -> Any:
    """Parse a document written by `dumps`; raise `CodecError` when it is not one."""
    return _decoded(_document(text).get("value"), allow_objects)


def _watch(parsed: dict[str, Any]) -> list[str]:
    watch = parsed.get("watch", [])
    if not isinstance(watch, list) or not all(isinstance(name, str) for name in watch):
        raise CodecError("a fixture's watch is a list of input names")
    return watch


def watched(text: str | bytes) -> list[str]:
    """The inputs a fixture's golden call changed (compared after the call)."""
    return _watch(_document(text))


def load_fixture(text: str | bytes) -> tuple[Any, list[str]]:
    """A fixture's call (objects rebuilt) and the inputs to compare after the call."""
    parsed = _document(text)
    return _decoded(parsed.get("value"), True), _watch(parsed)


def case_inputs(case: Any) -> dict[str, Any]:
    """A recorded call's inputs by name: ``self``, ``args[0]``, ``kwargs['beta']``."""
    if not isinstance(case, dict):
        return {}
    named: dict[str, Any] = {}
    if "self" in case:
        named["self"] = case["self"]
    for number, value in enumerate(case.get("args") or []):
        named[f"args[{number}]"] = value
    for key, value in (case.get("kwargs") or {}).items():
        named[f"kwargs[{key!r}]"] = value
    return named


def inputs_after(case: Any, watch: list[str]) -> dict[str, Any]:
    """The watched inputs of ``case`` as the call left them."""
    named = case_inputs(case)
    return {name: named[name] for name in watch if name in named}


def read_outcome(text: str | bytes) -> tuple[Any, dict[str, Any]]:
    """An output document's value and its inputs after the call (for comparison only)."""
    parsed = _document(text)
    changed = parsed.get("changed", {})
    if not isinstance(changed, dict):
        raise CodecError("an output's changed inputs are a mapping")
    return _decoded(parsed.get("value"), False), {
        str(name): _decoded(value, False) for name, value in changed.items()
    }


def outcome_mismatches(
    expected: tuple[Any, dict[str, Any]], actual: tuple[Any, dict[str, Any]]
) -> list[str]:
    """How an outcome (`read_outcome`) differs from the expected one: its value, and each
    input the golden call changed."""
    problems = []
    if not close(expected[0], actual[0]):
        problems.append("the output differs from the expected output")
    for name, want in expected[1].items():
        got = actual[1].get(name, Unstorable("not written"))
        if isinstance(got, Unstorable):
            problems.append(f"{name} after the call was not stored ({got.reason})")
        elif not close(want, got):
            problems.append(f"{name} after the call differs from what the golden call left")
    return problems


def show_no_work(outcomes: list[str] | list[bytes]) -> bool:
    """Whether every recorded call (its output documents) returned None and changed none
    of its inputs: fixtures that pass any function returning None. Unreadable documents
    are another check's business (False)."""
    for text in outcomes:
        try:
            value, changed = read_outcome(text)
        except CodecError:
            return False
        if value is not None or changed:
            return False
    return bool(outcomes)


def close(expected: Any, actual: Any, rel: float = 1e-5, abs_: float = 1e-6) -> bool:
    """True when ``actual`` matches ``expected``: numbers within tolerance, the same
    shapes and structure otherwise (lists and tuples alike)."""
    return _Comparison(rel, abs_).close(expected, actual)


class _Comparison:
    """One comparison. Containers and objects met again (``$ref``) are compared once: an
    object that holds itself does not loop, and shared parts are not compared again."""

    def __init__(self, rel: float, abs_: float) -> None:
        self.rel = rel
        self.abs = abs_
        #: (id, id) -> the verdict; True while being compared (a loop agrees with itself).
        self.done: dict[tuple[int, int], bool] = {}

    def close(self, expected: Any, actual: Any) -> bool:
        numpy = _numpy()
        if numpy is not None and (
            isinstance(expected, (numpy.ndarray, numpy.generic))
            or isinstance(actual, (numpy.ndarray, numpy.generic))
        ):
            return self._arrays(numpy, expected, actual)
        if isinstance(expected, bool) or isinstance(actual, bool):
            return type(expected) is type(actual) and expected == actual
        if isinstance(expected, (int, float)) and isinstance(actual, (int, float)):
            if math.isnan(expected) or math.isnan(actual):
                return math.isnan(expected) and math.isnan(actual)
            return math.isclose(float(expected), float(actual), rel_tol=self.rel, abs_tol=self.abs)
        if isinstance(expected, complex) or isinstance(actual, complex):
            try:
                want, got = complex(expected), complex(actual)
            except TypeError:
                return False
            return self.close(want.real, got.real) and self.close(want.imag, got.imag)
        if isinstance(expected, (list, tuple, dict, EncodedObject)):
            pair = (id(expected), id(actual))
            if pair not in self.done:
                self.done[pair] = True
                self.done[pair] = self._structures(expected, actual)
            return self.done[pair]
        return type(expected) is type(actual) and bool(expected == actual)

    def _structures(self, expected: Any, actual: Any) -> bool:
        if isinstance(expected, (list, tuple)) and isinstance(actual, (list, tuple)):
            return len(expected) == len(actual) and all(
                self.close(e, a) for e, a in zip(expected, actual, strict=True)
            )
        if isinstance(expected, dict) and isinstance(actual, dict):
            return expected.keys() == actual.keys() and all(
                self.close(expected[k], actual[k]) for k in expected
            )
        if isinstance(expected, EncodedObject) and isinstance(actual, EncodedObject):
            return expected.type_name == actual.type_name and self.close(
                expected.state, actual.state
            )
        return False

    def _arrays(self, numpy: Any, expected: Any, actual: Any) -> bool:
        try:
            want = numpy.asarray(expected)
            got = numpy.asarray(actual)
            if want.dtype.kind not in _KINDS or got.dtype.kind not in _KINDS:
                return False
            return want.shape == got.shape and bool(
                numpy.allclose(got, want, rtol=self.rel, atol=self.abs, equal_nan=True)
            )
        except (TypeError, ValueError):
            return False
