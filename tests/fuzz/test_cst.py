"""`functions`, `mask`, `splice` and `extract` with malformed Python files."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from tests.support.fuzz import FUZZ, assert_no_traceback, assert_refused, run_cli

GOOD = "def f(x):\n    return x + 1\n"

#: Python files the parser refuses: deep expressions, deep nesting, bytes, bad syntax.
bad_python = st.one_of(
    st.integers(20_000, 200_000).map(lambda n: ("x = " + "+".join(["1"] * n) + "\n").encode()),
    st.integers(250, 3000).map(lambda n: ("x = " + "(" * n + "1" + ")" * n + "\n").encode()),
    st.integers(100, 500).map(
        lambda n: "".join(" " * i + "if x:\n" for i in range(n)).encode() + b" " * n + b"pass\n"
    ),
    st.binary(min_size=1, max_size=64).map(lambda b: b"\xff\xfe" + b),
    st.sampled_from([b"def f(:\n", b"\x00", b"def f():\n\treturn 1\n        return 2\n"]),
)


@FUZZ
@given(data=bad_python)
def test_mask_splice_extract_refuse_a_file_that_does_not_parse(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "goal.py"
        path.write_bytes(data)
        good = Path(tmp) / "impl.py"
        good.write_text(GOOD)
        for argv in (
            ["mask", str(path), "f"],
            ["extract", str(path), "f"],
            ["splice", str(path), "f", "--impl", str(good)],
        ):
            assert_refused(run_cli(argv), path)


@FUZZ
@given(data=bad_python)
def test_splice_refuses_an_implementation_that_does_not_parse(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        goal = Path(tmp) / "goal.py"
        goal.write_text(GOOD)
        impl = Path(tmp) / "impl.py"
        impl.write_bytes(data)
        assert_refused(run_cli(["splice", str(goal), "f", "--impl", str(impl)]), impl)


@FUZZ
@given(data=bad_python)
def test_functions_skips_a_file_that_does_not_parse_by_name(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "ok.py").write_text(GOOD)
        bad = Path(tmp) / "bad.py"
        bad.write_bytes(data)
        outcome = run_cli(["functions", tmp])
        assert_no_traceback(outcome)
        assert "bad.py" in outcome.err and "ok.py" in outcome.out
        assert_refused(run_cli(["functions", str(bad)]), bad)


def test_mask_output_that_is_a_folder(tmp_path: Path) -> None:
    goal = tmp_path / "goal.py"
    goal.write_text(GOOD)
    outcome = run_cli(["mask", str(goal), "f", "-o", str(tmp_path)])
    assert_refused(outcome, tmp_path)
