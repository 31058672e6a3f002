"""The replay fixture format: values as JSON with a few tags, loadable without running code.

Replay-mode unit tests (templates/unit_test.py.tmpl) keep the recorded INPUTS of the
goal function in the repository and its EXPECTED outputs outside it; in the container
the candidate's outputs are written in this format and compared on the host, where no
candidate code ever ran. So loading must never execute anything: no pickle, only JSON
plus these tags (``{"$tag": ...}``): ``$float`` (nan, inf, -inf), ``$tuple``, ``$dict``
(keys that are not plain strings), ``$bytes`` (base64), ``$complex``, ``$ndarray`` and
``$npscalar`` (NumPy: dtype, shape, little-endian bytes in base64; numeric and bool
dtypes only), ``$tensor`` (a torch tensor, stored as its array) and ``$object`` (an
instance's class and ``__dict__``; only inputs may be rebuilt into objects, and only
when the caller allows it).

This one file is used on both sides: the toolkit imports it, and the authoring flow
copies it beside each replay test as ``unit_test/lmr_replay.py`` (standard library, plus
NumPy when the values hold arrays). Keep it free of lmr_author imports.
"""

from __future__ import annotations

import base64
import importlib
import json
import math
from typing import Any

FORMAT = "lmr-replay/1"
_TAG = "$"
#: NumPy dtype kinds that may cross: bool, signed, unsigned, float, complex.
_KINDS = "biufc"


class CodecError(ValueError):
    """A value that this format cannot hold, or a document that is not in it."""


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

    def __repr__(self) -> str:
        return f"<{self.type_name} {self.state!r}>"


def _numpy() -> Any:
    try:
        import numpy
    except ImportError:
        return None
    return numpy


def _torch_module_of(value: Any) -> Any:
    """torch, when ``value`` is a tensor (torch is never imported for other values)."""
    import sys

    torch = sys.modules.get("torch")
    if torch is not None and isinstance(value, torch.Tensor):
        return torch
    return None


def encode(value: Any, *, allow_objects: bool = False, _depth: int = 0) -> Any:
    """``value`` as a JSON-able structure; raise `CodecError` for what cannot cross."""
    if _depth > 100:
        raise CodecError("nested more than 100 levels deep")
    deeper = _depth + 1
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return {"$float": repr(float(value))}
        return float(value)
    if isinstance(value, complex):
        return {"$complex": [encode(value.real), encode(value.imag)]}
    if isinstance(value, (bytes, bytearray)):
        return {"$bytes": base64.b64encode(bytes(value)).decode("ascii")}
    if isinstance(value, list):
        return [encode(item, allow_objects=allow_objects, _depth=deeper) for item in value]
    if isinstance(value, tuple):
        return {"$tuple": [encode(i, allow_objects=allow_objects, _depth=deeper) for i in value]}
    if isinstance(value, dict):
        if all(isinstance(key, str) and not key.startswith(_TAG) for key in value):
            return {
                key: encode(item, allow_objects=allow_objects, _depth=deeper)
                for key, item in value.items()
            }
        return {
            "$dict": [
                [
                    encode(key, allow_objects=allow_objects, _depth=deeper),
                    encode(item, allow_objects=allow_objects, _depth=deeper),
                ]
                for key, item in value.items()
            ]
        }
    torch = _torch_module_of(value)
    if torch is not None:
        # A tensor crosses as its NumPy array; the reader rebuilds a tensor if it can.
        array = value.detach().cpu().numpy()
        return {"$tensor": encode(array, _depth=deeper)["$ndarray"]}
    numpy = _numpy()
    if numpy is not None and isinstance(value, (numpy.ndarray, numpy.generic)):
        array = numpy.asarray(value)
        if array.dtype.kind not in _KINDS:
            raise CodecError(f"NumPy dtype {array.dtype} cannot be stored (numbers only)")
        little = array.astype(array.dtype.newbyteorder("<"), copy=False)
        data = base64.b64encode(numpy.ascontiguousarray(little).tobytes()).decode("ascii")
        spec = {"dtype": little.dtype.str, "shape": list(array.shape), "data": data}
        return {"$ndarray" if isinstance(value, numpy.ndarray) else "$npscalar": spec}
    if allow_objects and hasattr(value, "__dict__") and not isinstance(value, type):
        kind = type(value)
        return {
            "$object": {
                "type": f"{kind.__module__}:{kind.__qualname__}",
                "state": encode(vars(value), allow_objects=True, _depth=deeper),
            }
        }
    raise CodecError(f"a value of type {type(value).__name__} cannot be stored")


def decode(data: Any, *, allow_objects: bool = False, _depth: int = 0) -> Any:
    """The value ``encode`` stored. Objects come back as `EncodedObject` unless
    ``allow_objects`` (only for inputs from the task's own repository)."""
    if _depth > 100:
        raise CodecError("nested more than 100 levels deep")
    deeper = _depth + 1
    if data is None or isinstance(data, (bool, int, float, str)):
        return data
    if isinstance(data, list):
        return [decode(item, allow_objects=allow_objects, _depth=deeper) for item in data]
    if not isinstance(data, dict):
        raise CodecError(f"unexpected JSON value {type(data).__name__}")
    if len(data) == 1:
        ((key, body),) = data.items()
        if key.startswith(_TAG):
            return _decode_tag(key, body, allow_objects, deeper)
    return {
        key: decode(item, allow_objects=allow_objects, _depth=deeper) for key, item in data.items()
    }


def _decode_tag(tag: str, body: Any, allow_objects: bool, depth: int) -> Any:
    if tag == "$float":
        if body not in ("nan", "inf", "-inf"):
            raise CodecError(f"bad $float {body!r}")
        return float(body)
    if tag == "$tuple":
        return tuple(decode(_list(body), allow_objects=allow_objects, _depth=depth))
    if tag == "$dict":
        pairs = [_list(pair) for pair in _list(body)]
        if any(len(pair) != 2 for pair in pairs):
            raise CodecError("$dict entries are [key, value] pairs")
        return {
            _hashable(decode(k, allow_objects=allow_objects, _depth=depth)): decode(
                v, allow_objects=allow_objects, _depth=depth
            )
            for k, v in pairs
        }
    if tag == "$bytes":
        return base64.b64decode(str(body), validate=True)
    if tag == "$complex":
        real, imag = _list(body)
        return complex(decode(real), decode(imag))
    if tag in ("$ndarray", "$npscalar"):
        return _decode_array(tag, body)
    if tag == "$tensor":
        array = _decode_array("$ndarray", body)
        if allow_objects:
            try:
                torch = importlib.import_module("torch")
            except ImportError:
                return array
            return torch.from_numpy(array.copy())
        return array
    if tag == "$object":
        if not isinstance(body, dict):
            raise CodecError("bad $object")
        state = decode(body.get("state"), allow_objects=allow_objects, _depth=depth)
        type_name = str(body.get("type", ""))
        if not allow_objects:
            return EncodedObject(type_name, state)
        module_name, _, qualname = type_name.partition(":")
        owner: Any = importlib.import_module(module_name)
        for part in qualname.split("."):
            owner = getattr(owner, part)
        instance = owner.__new__(owner)
        instance.__dict__.update(state)
        return instance
    raise CodecError(f"unknown tag {tag}")


def _list(value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise CodecError("expected a JSON list")
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


def dumps(value: Any, *, allow_objects: bool = False) -> str:
    return json.dumps({"format": FORMAT, "value": encode(value, allow_objects=allow_objects)})


def loads(text: str | bytes, *, allow_objects: bool = False) -> Any:
    """Parse a document written by `dumps`; raise `CodecError` when it is not one."""
    try:
        document = json.loads(text)
    except (ValueError, RecursionError) as error:
        raise CodecError(f"not JSON: {error}") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise CodecError(f"not an {FORMAT} document")
    try:
        return decode(document.get("value"), allow_objects=allow_objects)
    except RecursionError:
        raise CodecError("nested too deeply") from None
    except (TypeError, ValueError, AttributeError, ImportError) as error:
        if isinstance(error, CodecError):
            raise
        raise CodecError(str(error)) from None


def close(expected: Any, actual: Any, rel: float = 1e-5, abs_: float = 1e-6) -> bool:
    """True when ``actual`` matches ``expected``: numbers within tolerance, the same
    shapes and structure otherwise (lists and tuples alike)."""
    numpy = _numpy()
    if numpy is not None and (
        isinstance(expected, (numpy.ndarray, numpy.generic))
        or isinstance(actual, (numpy.ndarray, numpy.generic))
    ):
        try:
            want = numpy.asarray(expected)
            got = numpy.asarray(actual)
            if want.dtype.kind not in _KINDS or got.dtype.kind not in _KINDS:
                return False
            return want.shape == got.shape and bool(
                numpy.allclose(got, want, rtol=rel, atol=abs_, equal_nan=True)
            )
        except (TypeError, ValueError):
            return False
    if isinstance(expected, bool) or isinstance(actual, bool):
        return type(expected) is type(actual) and expected == actual
    if isinstance(expected, (int, float)) and isinstance(actual, (int, float)):
        if math.isnan(expected) or math.isnan(actual):
            return math.isnan(expected) and math.isnan(actual)
        return math.isclose(float(expected), float(actual), rel_tol=rel, abs_tol=abs_)
    if isinstance(expected, complex) or isinstance(actual, complex):
        try:
            return close(complex(expected).real, complex(actual).real, rel, abs_) and close(
                complex(expected).imag, complex(actual).imag, rel, abs_
            )
        except TypeError:
            return False
    if isinstance(expected, (list, tuple)) and isinstance(actual, (list, tuple)):
        return len(expected) == len(actual) and all(
            close(e, a, rel, abs_) for e, a in zip(expected, actual, strict=True)
        )
    if isinstance(expected, dict) and isinstance(actual, dict):
        return expected.keys() == actual.keys() and all(
            close(expected[k], actual[k], rel, abs_) for k in expected
        )
    if isinstance(expected, EncodedObject) and isinstance(actual, EncodedObject):
        return expected.type_name == actual.type_name and close(
            expected.state, actual.state, rel, abs_
        )
    return type(expected) is type(actual) and bool(expected == actual)
