"""Property: masking changes only the goal function, and splice(mask(f), extract(f)) == f.

Hypothesis samples real files (the standard library and installed packages), one of
their functions, a mask style and a byte-level variant of the file (as is, CRLF line
endings, a BOM), and checks both properties byte for byte.
"""

from __future__ import annotations

import os
import re
import sysconfig
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from lmr_author.cst.extract import extract_function
from lmr_author.cst.index import FunctionInfo, list_functions
from lmr_author.cst.locate import locate_function
from lmr_author.cst.mask import MASK_STYLES, mask_function
from lmr_author.cst.splice import splice_function
from lmr_author.util.errors import UserError

#: More examples for a deeper search: LMR_CST_ROUNDTRIP_EXAMPLES=1000 pytest ...
EXAMPLES = int(os.environ.get("LMR_CST_ROUNDTRIP_EXAMPLES", "100"))
_LINES = re.compile(rb"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
_PACKAGES = ("libcst", "rich", "textual", "hypothesis", "docker", "jsonschema", "platformdirs")


def _corpus() -> list[Path]:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    purelib = Path(sysconfig.get_paths()["purelib"])
    files = sorted(
        path
        for path in stdlib.rglob("*.py")
        if "site-packages" not in path.parts and path.stat().st_size < 400_000
    )
    for package in _PACKAGES:
        files.extend(sorted((purelib / package).rglob("*.py")))
    return files


FILES = _corpus()


def _lines(data: bytes) -> list[bytes]:
    return _LINES.findall(data)


def _variant(source: bytes, variant: str) -> bytes:
    if variant == "crlf":
        assume(b"\r" not in source)
        return source.replace(b"\n", b"\r\n")
    if variant == "bom":
        assume(not source.startswith(b"\xef\xbb\xbf"))
        return b"\xef\xbb\xbf" + source
    return source


def _check(source: str | bytes, info: FunctionInfo, style: str) -> None:
    masked = mask_function(source, info.name, info.class_name, style=style, line=info.def_line)
    assert type(masked) is type(source)
    if isinstance(source, bytes):
        assert isinstance(masked, bytes)
        before, after = _lines(source), _lines(masked)
        tail = len(before) - info.end_line
        assert after[: info.start_line - 1] == before[: info.start_line - 1]
        assert after[len(after) - tail :] == before[len(before) - tail :]
    implementation = extract_function(source, info.name, info.class_name, line=info.def_line)
    spliced = splice_function(
        masked, implementation, info.name, info.class_name, line=info.def_line
    )
    assert spliced == source
    # Without --line, wherever the goal resolver settles on this definition (nested
    # homonyms and same-scope variants around it), the round trip is the same.
    try:
        chosen = locate_function(list_functions(source), info.name, info.class_name)
    except (UserError, SyntaxError):  # ambiguous, or a str with a BOM (ast refuses those)
        return
    if chosen.def_line == info.def_line:
        assert mask_function(source, info.name, info.class_name, style=style) == masked
        assert splice_function(masked, implementation, info.name, info.class_name) == source


@pytest.mark.skipif(len(FILES) < 100, reason="no standard library sources to sample")
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(data=st.data())
def test_round_trip_on_real_files(data: st.DataObject) -> None:
    path = data.draw(st.sampled_from(FILES), label="file")
    raw = path.read_bytes()
    try:
        infos = list_functions(raw)
    except (SyntaxError, ValueError):
        infos = []
    assume(infos)
    info = data.draw(st.sampled_from(infos), label="function")
    style = data.draw(st.sampled_from(MASK_STYLES), label="style")
    variant = data.draw(st.sampled_from(["as-is", "crlf", "bom"]), label="variant")
    source = _variant(raw, variant)
    _check(source, info, style)
    if data.draw(st.booleans(), label="as str"):
        try:
            text = source.decode("utf-8")
        except UnicodeDecodeError:
            return
        _check(text, info, style)


@pytest.mark.skipif(len(FILES) < 100, reason="no standard library sources to sample")
@settings(
    max_examples=10, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(path=st.sampled_from(FILES))
def test_every_function_of_a_small_file(path: Path) -> None:
    raw = path.read_bytes()
    assume(raw.count(b"\n") < 400)
    try:
        infos = list_functions(raw)
    except (SyntaxError, ValueError):
        infos = []
    for info in infos:
        _check(raw, info, "lmr")
