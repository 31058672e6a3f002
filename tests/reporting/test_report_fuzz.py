"""Fuzz: whatever a run record, a judgment or a published results.txt holds, `report`
answers with a report (exit 0) or one readable error (exit 2), never a traceback."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lmr_author.cli import main
from tests.support.eval_output import RunSpec, build_eval_output

_value = st.none() | st.booleans() | st.integers() | st.text(max_size=6) | st.floats()
_object = st.dictionaries(
    st.sampled_from(["system", "task", "implementation", "verdict", "run_key", "category",
                     "candidate_sha256", "label", "tests", "error"]),
    _value | st.lists(_value, max_size=2),
)  # fmt: skip


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    run=_object | _value,
    judgment=_object | _value,
    published=st.text(max_size=80),
    which=st.sampled_from(["run", "judgment", "published"]),
)
def test_report_never_raises_a_traceback(
    run: object, judgment: object, published: str, which: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        out = build_eval_output(root, [RunSpec("a"), RunSpec("b")])
        argv = ["report", str(out), "--no-human", "--format", "json"]
        if which == "run":
            (out / "runs" / "b" / "01-Toy" / "1" / "run.json").write_text(json.dumps(run))
        elif which == "judgment":
            path = out / "judgments" / "a" / "01-Toy" / "1.json"
            path.parent.mkdir(parents=True)
            path.write_text(json.dumps(judgment))
        else:
            (root / "results.txt").write_text(published)
            argv += ["--published-results", str(root / "results.txt")]
        # 1: a run record the report left out (unreadable or not verifying), said.
        assert main(argv) in (0, 1, 2)
        capsys.readouterr()
