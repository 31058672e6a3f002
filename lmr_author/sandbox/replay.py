"""Replay mode on the host: compare the candidate's outputs with the expected outputs.

A replay test (templates/unit_test.py.tmpl) finds the goal function's recorded inputs in
the repository, calls the function under test on each and, inside the container, writes
each outcome (the value returned, and the inputs the golden call changed, as the call left
them) to ``$LMR_REPLAY_OUT/<case>.json`` (`lmr_author.domain.replay_codec`). The expected
outputs live in the task folder but outside the repository,
``<task>/expected_outputs/<unit test stem>/<case>.json``, so they never enter the image.
The harness's supervisor hands the outputs back in its report; here they are decoded (no
code runs: JSON only) and compared with the expected ones. The first case that differs
is named with both values where they first differ (the candidate's marked as its own,
quoted, capped), so that a reason says what the candidate got wrong.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import Any

from lmr_author.domain import replay_codec
from lmr_author.sandbox.harness.crossing import safe_text

EXPECTED_DIR = "expected_outputs"
#: Characters of one value shown in a reason (the expected one, the candidate's).
SHOWN_CHARS = 300


def replay_dir(task_dir: Path, test_file: str) -> Path:
    """Where the expected outputs of ``test_file`` (repo-relative) are kept."""
    return task_dir / EXPECTED_DIR / PurePosixPath(test_file).stem


def compare_outputs(expected_dir: Path, outputs: Any) -> list[str]:
    """Why the outputs do not match the expected ones (empty when every case matches)."""
    expected_files = sorted(expected_dir.glob("*.json"))
    if not expected_files:
        return [f"no expected outputs in {expected_dir.name} (record the fixtures again)"]
    if not isinstance(outputs, dict):
        return ["the test wrote no outputs"]
    files = outputs.get("files")
    if not isinstance(files, dict):
        return [f"the outputs could not be read: {outputs.get('error', 'nothing there')}"]
    problems: list[str] = []
    detailed = False
    if outputs.get("error"):
        problems.append(f"the outputs could not be read: {outputs['error']}")
    for path in expected_files:
        case = path.stem
        got = files.get(path.name)
        if not isinstance(got, dict) or got.get("missing"):
            problems.append(f"case {case}: no output (the call raised or was skipped)")
            continue
        if "refused" in got:
            problems.append(f"case {case}: the output was refused ({got['refused']})")
            continue
        if got.get("truncated"):
            problems.append(f"case {case}: the output is larger than the cap")
            continue
        try:
            actual = replay_codec.read_outcome(str(got.get("text", "")))
        except replay_codec.CodecError as error:
            problems.append(f"case {case}: the output is not readable ({error})")
            continue
        try:
            want = replay_codec.read_outcome(path.read_bytes())
        except (OSError, replay_codec.CodecError) as error:
            problems.append(f"case {case}: the expected output is not readable ({error})")
            continue
        mismatches = replay_codec.outcome_mismatches(want, actual)
        if mismatches and not detailed:
            mismatches[0] += difference(want, actual)
            detailed = True
        problems += [f"case {case}: {problem}" for problem in mismatches]
    return problems


def difference(want: tuple[Any, dict[str, Any]], actual: tuple[Any, dict[str, Any]]) -> str:
    """Where an outcome first differs from the expected one (the value, else the first
    input the golden call changed), with both values there: appended to the mismatch."""
    missing = replay_codec.Unstorable("not written")
    pairs = [(want[0], actual[0])]
    pairs += [(value, actual[1].get(name, missing)) for name, value in want[1].items()]
    for expected, got in pairs:
        if isinstance(got, replay_codec.Unstorable):
            return ""  # "not stored": the mismatch says why, there is no value to show
        if not replay_codec.close(expected, got):
            where, expected, got = _first_difference(expected, got, "", 0)
            at = f" at {where}" if where else ""
            return f"{at}: expected {shown(expected)}, the candidate's {shown(got)}"
    return ""


def _first_difference(expected: Any, actual: Any, where: str, depth: int) -> tuple[str, Any, Any]:
    """The first part of ``actual`` (its path, as indexes) that differs from ``expected``,
    descending through sequences, mappings and arrays of the same shape."""
    import numpy

    if depth > 20:
        return where, expected, actual
    if isinstance(expected, (list, tuple)) and isinstance(actual, (list, tuple)):
        if len(expected) == len(actual):
            for index, (one, other) in enumerate(zip(expected, actual, strict=True)):
                if not replay_codec.close(one, other):
                    return _first_difference(one, other, f"{where}[{index}]", depth + 1)
    elif isinstance(expected, dict) and isinstance(actual, dict):
        if expected.keys() == actual.keys():
            for key, one in expected.items():
                if not replay_codec.close(one, actual[key]):
                    return _first_difference(one, actual[key], f"{where}[{key!r}]", depth + 1)
    elif (
        isinstance(expected, numpy.ndarray)
        and isinstance(actual, numpy.ndarray)
        and expected.shape == actual.shape
        and expected.ndim
        and expected.size
    ):
        try:  # as `replay_codec.close` compares arrays, element by element
            alike = numpy.isclose(actual, expected, rtol=1e-5, atol=1e-6, equal_nan=True)
        except (TypeError, ValueError):
            return where, expected, actual
        differing = numpy.argwhere(~alike)
        if len(differing):
            place = tuple(int(i) for i in differing[0])
            at = ", ".join(str(i) for i in place)
            return f"{where}[{at}]", expected[place], actual[place]
    return where, expected, actual


def shown(value: Any) -> str:
    """A value as a reason shows it: one line, arrays summarised, made safe, capped."""
    import numpy

    with numpy.printoptions(threshold=12, edgeitems=3, precision=6, linewidth=1 << 20):
        try:
            if isinstance(value, numpy.generic):
                text = repr(value.item())
            elif isinstance(value, numpy.ndarray):
                text = f"{numpy.array2string(value)} (shape {value.shape}, {value.dtype})"
            else:
                text = repr(value)
        except Exception:  # a value decoded from JSON has a repr; anything else is ours
            text = f"<{type(value).__name__}>"
    flat = " ".join(safe_text(text).split())
    return flat if len(flat) <= SHOWN_CHARS else flat[: SHOWN_CHARS - 1] + "…"
