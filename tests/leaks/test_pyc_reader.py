"""Bytecode of any CPython 3, read as data: fixtures compiled by 3.8, 3.10, 3.12 and 3.13
(fixtures/make_pyc.py says how), the running 3.11, and garbage."""

from __future__ import annotations

import importlib.util
import marshal
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lmr_author.leaks.goal_code import goal_code
from lmr_author.leaks.pyc_reader import fingerprint, functions, overlap, read_code, read_pyc
from tests.leaks.support import FIXTURES, GOLDEN, compile_here

VERSIONS = ["38", "310", "312", "313"]


def _golden_print() -> object:
    [goal] = goal_code(GOLDEN, "weighted_mean")
    assert goal.compiled is not None
    return goal.compiled


@pytest.mark.parametrize("tag", VERSIONS)
def test_other_versions_bytecode_reads_and_matches_the_golden(tag: str) -> None:
    golden = read_pyc((FIXTURES / f"golden.cpython-{tag}.pyc").read_bytes())
    masked = read_pyc((FIXTURES / f"masked.cpython-{tag}.pyc").read_bytes())
    assert golden.problem == "" and golden.version == (3, int(tag[1:]))
    assert [f.qualname for f in functions(golden.module)] == ["weighted_mean"]  # type: ignore[arg-type]
    [compiled] = functions(golden.module)  # type: ignore[arg-type]
    [stub] = functions(masked.module)  # type: ignore[arg-type]
    reference = _golden_print()
    assert overlap(reference, fingerprint(compiled.code)) >= 0.85  # type: ignore[arg-type]
    assert overlap(reference, fingerprint(stub.code)) < 0.5  # type: ignore[arg-type]
    assert golden.source_size == len(GOLDEN.encode())


def test_the_running_interpreters_bytecode_reads(tmp_path: Path) -> None:
    pyc = read_pyc(compile_here(GOLDEN, tmp_path / "golden.pyc").read_bytes())
    assert pyc.version == sys.version_info[:2]
    assert (tmp_path / "golden.pyc").read_bytes()[:4] == importlib.util.MAGIC_NUMBER
    [compiled] = functions(pyc.module)  # type: ignore[arg-type]
    assert overlap(_golden_print(), fingerprint(compiled.code)) == 1.0  # type: ignore[arg-type]


@pytest.mark.parametrize("module", ["difflib", "argparse", "dataclasses", "json.decoder"])
def test_standard_library_code_lists_the_functions_marshal_sees(module: str) -> None:
    spec = importlib.util.find_spec(module)
    assert spec is not None and spec.origin is not None
    code = compile(Path(spec.origin).read_text(), spec.origin, "exec")
    mine = read_code(marshal.dumps(code), sys.version_info[:2])
    assert mine is not None

    def walk(parent: object) -> list[str]:
        found: list[str] = []
        for const in parent.co_consts:  # type: ignore[attr-defined]
            if hasattr(const, "co_code") and not const.co_name.startswith("<"):
                if const.co_flags & 2:
                    found.append(const.co_qualname)
                found += walk(const)
        return found

    assert [f.qualname for f in functions(mine)] == walk(code)


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (b"", "no magic number"),
        (b"\x6f\x0d\r\n" + b"\0" * 12 + b"\xe3", "cannot be read"),
        (b"\x6f\x0d\r\n\0\0", "truncated"),
        (b"\x00\x99\r\n" + b"\0" * 20, "unknown Python"),
    ],
)
def test_broken_files_say_why(data: bytes, problem: str) -> None:
    assert problem in read_pyc(data).problem


def test_truncations_of_real_bytecode_never_raise() -> None:
    data = (FIXTURES / "golden.cpython-310.pyc").read_bytes()
    for end in range(len(data)):
        read_pyc(data[:end])


@settings(max_examples=300, deadline=None)
@given(
    st.binary(max_size=400), st.sampled_from([b"\x6f\x0d\r\n", b"\xa7\x0d\r\n", b"\x61\x0d\r\n"])
)
def test_garbage_after_a_real_magic_never_raises(body: bytes, magic: bytes) -> None:
    pyc = read_pyc(magic + b"\0" * 12 + body)
    if pyc.module is not None:
        list(functions(pyc.module))
        fingerprint(pyc.module)
