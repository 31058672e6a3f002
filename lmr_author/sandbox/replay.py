"""Replay mode on the host: compare the candidate's outputs with the expected outputs.

A replay test (templates/unit_test.py.tmpl) finds the goal function's recorded inputs in
the repository, calls the function under test on each and, inside the container, writes
each outcome (the value returned, and the inputs the golden call changed, as the call left
them) to ``$LMR_REPLAY_OUT/<case>.json`` (`lmr_author.domain.replay_codec`). The expected
outputs live in the task folder but outside the repository,
``<task>/expected_outputs/<unit test stem>/<case>.json``, so they never enter the image.
The harness's supervisor hands the outputs back in its report; here they are decoded (no
code runs: JSON only) and compared with the expected ones.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import Any

from lmr_author.domain import replay_codec

EXPECTED_DIR = "expected_outputs"


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
        problems += [f"case {case}: {problem}" for problem in mismatches]
    return problems
