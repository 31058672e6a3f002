"""Malformed inputs for every command, and the one check they must all pass.

Each fuzz test writes a malformed file where a command expects input, runs
``lmr_author.cli.main(argv)`` in-process and checks what the user would see: exit code
2 (or 1 where the command reports findings, e.g. ``validate``), no traceback, not the
CLI's last-resort "internal error" (that is a bug: the input boundary missed it), and
a message naming the file.
"""

from __future__ import annotations

import contextlib
import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from lmr_author.cli import main

#: Modest: every command is fuzzed, and the whole suite stays fast.
FUZZ = settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


@dataclass(frozen=True)
class Outcome:
    code: int
    out: str
    err: str


def run_cli(argv: list[str]) -> Outcome:
    """``main(argv)`` with stdout and stderr captured."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return Outcome(code, out.getvalue(), err.getvalue())


def assert_refused(outcome: Outcome, file: Path, *, codes: tuple[int, ...] = (2,)) -> None:
    """Refused the way a user should see it: the right exit code, one paragraph naming
    ``file``, no traceback, and not the catch-all for bugs."""
    text = outcome.out + outcome.err
    assert "Traceback" not in text, text
    assert "internal error" not in text, text
    assert outcome.code in codes, (outcome.code, text)
    assert file.name in text, text
    if codes == (2,):
        error_lines = [line for line in outcome.err.splitlines() if "error" in line]
        assert error_lines, outcome.err
        assert file.name in error_lines[-1], outcome.err  # the one paragraph names it


def assert_no_traceback(outcome: Outcome) -> None:
    text = outcome.out + outcome.err
    assert "Traceback" not in text, text
    assert "internal error" not in text, text
    assert outcome.code in (0, 1, 2), (outcome.code, text)


_scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20)
json_values = st.recursive(
    _scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=12,
)


def deep(depth: int, opener: str = "[") -> bytes:
    closer = {"[": "]", "{": "}"}[opener]
    inner = '"k": ' if opener == "{" else ""
    return ((opener + inner) * depth + "1" + closer * depth).encode()


#: Bytes that are never a valid input file of any command.
malformed_bytes = st.one_of(
    st.binary(min_size=1, max_size=64).map(lambda b: b"\xff\xfe" + b),  # not UTF-8
    st.integers(65, 3000).map(deep),  # nested too deeply
    st.integers(65, 3000).map(lambda n: deep(n, "{")),
    st.sampled_from(
        [
            b"",
            b"{",
            b"[1, 2",
            b"\x00\x01\x02",
            b'{"a": 1}{"b": 2}',
            b"1" * 5000,  # more digits than Python converts
            b"NaN",
            "\u2028".encode(),
        ]
    ),
)

#: Valid JSON of the wrong shape: the command must say what is wrong with it.
wrong_json = json_values.map(lambda value: json.dumps(value).encode())


def json_bytes(value: Any) -> bytes:
    return json.dumps(value).encode()
