"""`validate` and `sandbox build` with a malformed info.json: findings or a refusal.

`tests/validate/test_validate_fuzz.py` fuzzes whole task folders; this checks the
command's answer for the input files that ended in tracebacks (binary, deep, huge).
`sandbox build` refuses the task before it talks to Docker.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given

from tests.support.eval_output import write_task
from tests.support.fuzz import FUZZ, assert_refused, malformed_bytes, run_cli


@FUZZ
@given(data=malformed_bytes)
def test_validate_reports_a_malformed_info_json(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        task = write_task(Path(tmp) / "bench")
        info = task / "info.json"
        info.write_bytes(data)
        outcome = run_cli(["validate", str(task)])
        assert_refused(outcome, info, codes=(1,))
        assert "json-syntax" in outcome.out or "info.json" in outcome.out


@FUZZ
@given(data=malformed_bytes)
def test_sandbox_build_refuses_a_malformed_task(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        task = write_task(Path(tmp) / "bench")
        info = task / "info.json"
        info.write_bytes(data)
        assert_refused(run_cli(["sandbox", "build", str(task)]), info)


def test_validate_a_task_folder_that_cannot_be_listed(tmp_path: Path) -> None:
    task = write_task(tmp_path / "bench")
    (task / "info.json").unlink()
    (task / "info.json").mkdir()
    outcome = run_cli(["validate", str(task)])
    assert_refused(outcome, task / "info.json", codes=(1,))
