"""`functions`, `mask`, `splice` and `extract` with malformed Python files, and their
round trip on modules whose goal function has nested homonyms."""

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


# --- Nested duplicates: the goal resolver picks the top-level definition -----------------

_BODIES = st.sampled_from(
    [
        "    return x\n",
        '    """Doc."""\n    y = x * 2\n    return y\n',
        "    if x:\n        return 1\n    return 0\n",
        "    # comment\n    k = [i for i in range(3)]\n    return k\n",
    ]
)


@st.composite
def modules_with_nested_duplicates(draw: st.DrawFn) -> tuple[str, str]:
    """A module whose top-level ``goal`` has homonyms nested in functions, methods and
    nested classes (before and after it), and the exact lines of the top-level one."""
    goal = "def goal(x):\n" + draw(_BODIES)
    homonym = "def goal(x, y=None):\n" + draw(_BODIES)
    places = [
        "def main():\n    a = 1\n{nested}    return a\n",
        "class Model:\n    def forward(self):\n{nested2}        return goal\n",
        "class Outer:\n    class Inner:\n        def run(self):\n{nested3}            pass\n",
        "def deep():\n    def mid():\n{nested2}        return 2\n    return mid\n",
    ]
    chunks = [
        place.format(
            nested=_indent(homonym, 4),
            nested2=_indent(homonym, 8),
            nested3=_indent(homonym, 12),
        )
        for place in draw(st.lists(st.sampled_from(places), min_size=1, max_size=4))
    ]
    position = draw(st.integers(0, len(chunks)))
    chunks.insert(position, goal)
    gap = draw(st.sampled_from(["\n", "\n\n"]))
    return gap.join(chunks), goal


def _indent(code: str, width: int) -> str:
    return "".join(" " * width + line if line.strip() else line for line in code.splitlines(True))


@FUZZ
@given(case=modules_with_nested_duplicates(), crlf=st.booleans())
def test_nested_duplicates_round_trip_on_the_top_level_goal(
    case: tuple[str, str], crlf: bool
) -> None:
    from lmr_author.cst import extract_function, mask_function, splice_function

    text, goal = case
    start = text.index(goal)
    # The published masked files keep only the final return line.
    published = (
        text[:start] + goal.split("\n", 1)[0] + "\n    return x\n" + text[start + len(goal) :]
    )
    if crlf:
        text, goal = text.replace("\n", "\r\n"), goal.replace("\n", "\r\n")
        published = published.replace("\n", "\r\n")
        start = text.index(goal)
    source = text.encode()
    assert extract_function(source, "goal") == goal
    masked = mask_function(source, "goal")
    # Only the top-level definition changed: everything before and after is intact.
    assert masked.startswith(source[:start])
    assert masked.endswith(source[start + len(goal) :])
    assert splice_function(masked, goal, "goal") == source
    assert splice_function(published.encode(), goal, "goal") == source
