"""Compiled Python files (``__pycache__/*.pyc``) of any CPython 3 version, read as data.

A ``.pyc`` compiled before the goal was masked holds the golden function whole, and
``marshal`` gives it back, but only to an interpreter of the same version: the code
object's layout changed in 3.8 and 3.11, and the published tasks ship bytecode of 3.6,
3.9, 3.10, 3.11, 3.12 and 3.13. ``marshal.loads`` is also documented as unsafe on
malicious data. So this module walks the marshal format itself (it has been the same
since 3.4, bar the code object's fields and 3.14's slices), bounded in depth and by
the bytes it is given, and never raises: a truncated or garbage file is a `Pyc` whose
``problem`` says why.

xdis (a maintained cross-version reader) would do the reading, but it is GPL-2.0 and
lmr-author is MIT; the walk below needs only the format's public description
(``Python/marshal.c``) and is tested against the running interpreter's own ``marshal``.

What is compared is a fingerprint that survives a change of version: the names a code
object uses (globals, attributes), its local names (not its parameters: the signature is
no secret) and its constants, with nested code (comprehensions, lambdas, inner functions)
folded in. Bytecode itself changes with every
version, so it is not compared.
"""

from __future__ import annotations

import struct
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

#: (first magic number, version): the ranges CPython's importlib assigns (3.3 to 3.14).
_MAGIC_RANGES = (
    (3230, (3, 3)),
    (3250, (3, 4)),
    (3320, (3, 5)),
    (3360, (3, 6)),
    (3390, (3, 7)),
    (3400, (3, 8)),
    (3420, (3, 9)),
    (3430, (3, 10)),
    (3450, (3, 11)),
    (3500, (3, 12)),
    (3550, (3, 13)),
    (3600, (3, 14)),
    (3700, (3, 15)),
)
_MAX_DEPTH = 120
_FLAG_REF = 0x80
_CO_NEWLOCALS = 0x2


@dataclass(frozen=True)
class CodeObject:
    """What a code object holds that says what it computes."""

    name: str
    qualname: str  # 3.11+; "" before (built from the nesting by `functions`)
    flags: int
    names: tuple[str, ...]
    varnames: tuple[str, ...]
    consts: tuple[object, ...]
    first_line: int
    arguments: int = 0  # how many of ``varnames`` are the parameters

    @property
    def is_function(self) -> bool:
        return bool(self.flags & _CO_NEWLOCALS)  # class bodies and modules have no locals


@dataclass(frozen=True)
class Pyc:
    """One ``.pyc`` file: its Python version, its header's source size, its module code."""

    version: tuple[int, int] | None
    source_size: int | None  # of the .py it was compiled from (timestamp-based pycs)
    module: CodeObject | None
    problem: str = ""

    @property
    def version_text(self) -> str:
        return f"{self.version[0]}.{self.version[1]}" if self.version else "unknown"


def version_of(magic: int) -> tuple[int, int] | None:
    found = None
    for first, version in _MAGIC_RANGES:
        if magic >= first:
            found = version
    return found if magic < 3800 else None


def read_pyc(data: bytes) -> Pyc:
    """Read a ``.pyc`` file's bytes; never raises (`Pyc.problem` says what went wrong)."""
    if len(data) < 4 or data[2:4] != b"\r\n":
        return Pyc(None, None, None, "not a compiled Python file (no magic number)")
    magic = int.from_bytes(data[:2], "little")
    version = version_of(magic)
    if version is None:
        return Pyc(None, None, None, f"bytecode of an unknown Python (magic number {magic})")
    header = 16 if version >= (3, 7) else 12
    if len(data) < header:
        return Pyc(version, None, None, "truncated: the header is cut short")
    source_size: int | None = None
    if version >= (3, 7):
        flags = int.from_bytes(data[4:8], "little")
        if not flags & 1:  # timestamp-based: mtime, then the source's size
            source_size = int.from_bytes(data[12:16], "little")
    else:
        source_size = int.from_bytes(data[8:12], "little")
    try:
        module = _Reader(data, header, version).read_object()
    except _Malformed as error:
        return Pyc(version, source_size, None, f"cannot be read: {error}")
    if not isinstance(module, CodeObject):
        return Pyc(version, source_size, None, "cannot be read: it holds no module code")
    return Pyc(version, source_size, module)


def read_code(data: bytes, version: tuple[int, int]) -> CodeObject | None:
    """A marshalled code object without a ``.pyc`` header (``marshal.dumps(code)``)."""
    try:
        found = _Reader(data, 0, version).read_object()
    except _Malformed:
        return None
    return found if isinstance(found, CodeObject) else None


@dataclass(frozen=True)
class CompiledFunction:
    qualname: str
    code: CodeObject


def functions(module: CodeObject) -> Iterator[CompiledFunction]:
    """Every function and method in ``module``, with qualified names, outermost first."""
    yield from _functions(module, "")


def _functions(code: CodeObject, prefix: str) -> Iterator[CompiledFunction]:
    for const in code.consts:
        if not isinstance(const, CodeObject) or const.name.startswith("<"):
            continue  # <lambda>, <listcomp>, <genexpr>: part of their function
        qualname = const.qualname or f"{prefix}{const.name}"
        if const.is_function:
            yield CompiledFunction(qualname, const)
            yield from _functions(const, qualname + ".<locals>.")
        else:  # a class body: its functions are its methods
            yield from _functions(const, qualname + ".")


def plain_qualname(qualname: str) -> str:
    """``Outer.<locals>.inner`` as the source index spells it, ``Outer.inner``."""
    return qualname.replace(".<locals>.", ".")


def fingerprint(code: CodeObject) -> Counter[str]:
    """Names, local names and constants of ``code`` and the code nested in it.

    The docstring (the first constant when it is a string) is left out; so are None and
    the booleans, which compilers of different versions place differently.
    """
    found: Counter[str] = Counter()
    _fold(code, found, 0)
    return found


def _fold(code: CodeObject, found: Counter[str], depth: int) -> None:
    if depth > _MAX_DEPTH:
        return
    found.update("n:" + name for name in code.names)
    # The parameters are the signature, which the masked goal file shows anyway.
    local = code.varnames[code.arguments :] if code.is_function else code.varnames
    found.update("v:" + name for name in local if not name.startswith("."))
    consts = code.consts
    if consts and isinstance(consts[0], str) and code.is_function:
        consts = consts[1:]
    for const in consts:
        if isinstance(const, CodeObject):
            _fold(const, found, depth + 1)
        else:
            _fold_const(const, found)


def _fold_const(const: object, found: Counter[str]) -> None:
    if const is None or isinstance(const, bool) or const is Ellipsis:
        return
    if isinstance(const, tuple | frozenset):
        for item in const:
            if not isinstance(item, tuple | frozenset | CodeObject):
                _fold_const(item, found)
        return
    found["k:" + repr(const)[:80]] += 1


def overlap(first: Counter[str], second: Counter[str]) -> float:
    """Dice's coefficient of two fingerprints (as multisets): 1.0 when they are equal."""
    total = sum(first.values()) + sum(second.values())
    return 2 * sum((first & second).values()) / total if total else 0.0


_NULL = object()  # marshal's NULL: the end of a dict


class _Malformed(Exception):
    """The bytes are not the marshal format (truncated, unknown type, too deep)."""


@dataclass
class _Reader:
    data: bytes
    position: int
    version: tuple[int, int]
    refs: list[object] = field(default_factory=list)
    depth: int = 0

    def take(self, count: int) -> bytes:
        if count < 0 or self.position + count > len(self.data):
            raise _Malformed(f"truncated at byte {self.position}")
        chunk = self.data[self.position : self.position + count]
        self.position += count
        return chunk

    def byte(self) -> int:
        return self.take(1)[0]

    def int32(self) -> int:
        return int(struct.unpack("<i", self.take(4))[0])

    def read_object(self) -> object:
        self.depth += 1
        if self.depth > _MAX_DEPTH:
            raise _Malformed("nested too deeply")
        try:
            return self._read()
        finally:
            self.depth -= 1

    def _read(self) -> object:
        code = self.byte()
        flag = bool(code & _FLAG_REF)
        kind = chr(code & ~_FLAG_REF)
        if kind == "r":
            index = self.int32()
            if not 0 <= index < len(self.refs):
                raise _Malformed(f"a reference to object {index}, which does not exist")
            return self.refs[index]
        if kind in "()[{<>c:":  # containers: their place is reserved before their items
            slot = len(self.refs)
            if flag:
                self.refs.append(None)
            value = self._container(kind)
            if flag:
                self.refs[slot] = value
            return value
        value = self._simple(kind)
        if flag:
            self.refs.append(value)
        return value

    def _simple(self, kind: str) -> object:
        constants: dict[str, object] = {
            "0": _NULL,
            "N": None,
            "F": False,
            "T": True,
            ".": Ellipsis,
            "S": StopIteration,
        }
        if kind in constants:
            return constants[kind]
        if kind == "i":
            return self.int32()
        if kind == "I":
            return int(struct.unpack("<q", self.take(8))[0])
        if kind == "l":
            count = self.int32()
            digits = [
                int(struct.unpack("<H", self.take(2))[0]) for _ in range(min(abs(count), 1 << 20))
            ]
            value = sum(digit << (15 * place) for place, digit in enumerate(digits))
            return -value if count < 0 else value
        if kind == "g":
            return float(struct.unpack("<d", self.take(8))[0])
        if kind == "y":
            real, imag = struct.unpack("<dd", self.take(16))
            return complex(real, imag)
        if kind == "f":
            return self._float_text()
        if kind == "x":
            return complex(self._float_text(), self._float_text())
        if kind == "s":
            return self.take(self.int32())
        if kind in "tu":
            return self.take(self.int32()).decode("utf-8", "surrogatepass")
        if kind in "aA":
            return self.take(self.int32()).decode("latin-1")
        if kind in "zZ":
            return self.take(self.byte()).decode("latin-1")
        raise _Malformed(f"unknown marshal type {kind!r} at byte {self.position - 1}")

    def _float_text(self) -> float:
        text = self.take(self.byte()).decode("latin-1")
        try:
            return float(text)
        except ValueError:
            raise _Malformed(f"not a number: {text!r}") from None

    def _container(self, kind: str) -> object:
        if kind == ")":  # a small tuple: its count in one byte
            return tuple(self.read_object() for _ in range(self.byte()))
        if kind in "([<>":
            count = self.int32()
            if count < 0 or count > len(self.data) - self.position:
                raise _Malformed(f"a container of {count} items in a shorter file")
            items = tuple(self.read_object() for _ in range(count))
            return frozenset(_hashable(item) for item in items) if kind in "<>" else items
        if kind == "{":
            pairs: list[tuple[object, object]] = []
            while True:
                key = self.read_object()
                if key is _NULL:  # NULL ends a dict
                    return tuple(pairs)
                pairs.append((key, self.read_object()))
        if kind == ":":  # 3.14's slice constants
            return (self.read_object(), self.read_object(), self.read_object())
        return self._code()

    def _code(self) -> CodeObject:
        modern = self.version >= (3, 11)
        argcount = self.int32()  # positional-only ones included
        if self.version >= (3, 8):
            self.int32()  # posonlyargcount
        kwonly = self.int32()
        if not modern:
            self.int32()  # nlocals
        self.int32()  # stacksize
        flags = self.int32()
        arguments = argcount + kwonly + bool(flags & 0x4) + bool(flags & 0x8)
        self.read_object()  # the bytecode: it changes with every version
        consts = self.read_object()
        names = self.read_object()
        varnames = self.read_object()
        if modern:
            self.read_object()  # localspluskinds
        else:
            self.read_object()  # freevars
            self.read_object()  # cellvars
        self.read_object()  # filename
        name = self.read_object()
        qualname = self.read_object() if modern else ""
        first_line = self.int32()
        self.read_object()  # line table
        if modern:
            self.read_object()  # exception table
        return CodeObject(
            name=name if isinstance(name, str) else "",
            qualname=qualname if isinstance(qualname, str) else "",
            flags=flags,
            names=_strings(names),
            varnames=_strings(varnames),
            consts=consts if isinstance(consts, tuple) else (),
            first_line=first_line,
            arguments=arguments,
        )


def _strings(value: object) -> tuple[str, ...]:
    if not isinstance(value, tuple):
        return ()
    return tuple(item for item in value if isinstance(item, str))


def _hashable(item: object) -> object:
    try:
        hash(item)
    except TypeError:
        return repr(item)
    return item
