"""Fuzz: any manifest file either loads or is a UserError, never a traceback."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from lmr_author.util.errors import UserError
from lmr_author.workspaces import MANIFEST_FILE, load_manifest

_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)
_entry = st.fixed_dictionaries(
    {
        "task": st.text(max_size=6) | st.integers(),
        "implementation": st.integers() | st.booleans() | st.text(max_size=3),
        "path": st.sampled_from(["01-A/1", "../x", "/abs", "", "a/b"]),
        "goal_file": st.sampled_from(["repo/a.py", "../a.py", ""]),
        "goal_function": st.text(max_size=6),
        "class_name": st.text(max_size=6) | st.none(),
        "masked_sha256": st.text(max_size=6),
        "files": st.dictionaries(st.text(max_size=6), st.text(max_size=4) | st.integers()),
    }
)
_manifest = st.fixed_dictionaries(
    {
        "format": st.sampled_from(["lmr-workspaces/1", "other"]),
        "benchmark": st.text(max_size=6) | st.integers(),
        "setting": st.text(max_size=6),
        "workspaces": st.lists(_entry | _json, max_size=3) | _json,
    }
)


@settings(max_examples=200, deadline=None)
@given(data=_manifest | _json, raw=st.binary(max_size=40), use_raw=st.booleans())
def test_any_manifest_loads_or_is_a_user_error(data: object, raw: bytes, use_raw: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / MANIFEST_FILE
        path.write_bytes(raw if use_raw else json.dumps(data).encode())
        try:
            manifest = load_manifest(Path(tmp))
        except UserError as error:
            assert str(error)
        else:
            assert all(isinstance(e.implementation, int) for e in manifest.workspaces)
