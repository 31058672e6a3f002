"""`new-task --spec` with malformed spec files: refused before anything is built."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from tests.support.fuzz import (
    FUZZ,
    assert_refused,
    json_bytes,
    json_values,
    malformed_bytes,
    run_cli,
)

STRING_KEYS = ["folder_name", "source", "ref", "paper_pdf", "repo_folder_name", "repo_path"]
GOAL = {"goal_file": "pkg/mod.py", "goal_function": "f"}

#: A spec with one field of the wrong type, or a folder name that leaves its parent.
bad_spec = st.one_of(
    st.sampled_from(STRING_KEYS).flatmap(
        lambda key: json_values.filter(lambda v: not isinstance(v, str)).map(lambda v: {key: v})
    ),
    json_values.filter(
        lambda v: (v is not None and not isinstance(v, int)) or isinstance(v, bool)
    ).map(lambda v: {"year": v}),
    st.sampled_from(["/etc", "..", "../x", "a/b", "a\\b"]).map(lambda v: {"folder_name": v}),
    st.sampled_from(["/abs.py", "../up.py", "a/../../b.py"]).map(
        lambda v: {"goals": [{**GOAL, "goal_file": v}]}
    ),
    json_values.filter(lambda v: not isinstance(v, list)).map(
        lambda v: {"goals": [{**GOAL, "retrieval_context": v}]}
    ),
    st.integers(min_value=10**9).map(lambda v: {"instance_id": v}),
)


@FUZZ
@given(data=malformed_bytes | bad_spec.map(json_bytes))
def test_a_malformed_spec_is_refused(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        spec = Path(tmp) / "spec.json"
        spec.write_bytes(data)
        into = Path(tmp) / "benchmark"
        assert_refused(run_cli(["new-task", "--spec", str(spec), "--into", str(into)]), spec)
        assert not into.exists()
