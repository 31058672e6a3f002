"""Fuzz: any existing predictions file is resumed from or refused with a UserError."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from lmr_author.generation.predictions import read_records, write_records
from lmr_author.util.errors import UserError

_value = st.none() | st.booleans() | st.integers() | st.text(max_size=6) | st.floats()
_record = st.fixed_dictionaries(
    {"task": _value, "implementation": _value, "system": _value, "source": _value},
    optional={"sample": _value, "usage": _value | st.dictionaries(st.text(max_size=3), _value),
              "truncations": _value | st.lists(_value, max_size=2)},
)  # fmt: skip


@settings(max_examples=200, deadline=None)
@given(
    lines=st.lists(_record | _value.map(lambda v: v), max_size=4),
    raw=st.binary(max_size=60),
    use_raw=st.booleans(),
)
def test_any_predictions_file_is_read_or_refused(
    lines: list[object], raw: bytes, use_raw: bool
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "p.jsonl"
        data = raw if use_raw else "".join(json.dumps(x) + "\n" for x in lines).encode()
        path.write_bytes(data)
        try:
            records = read_records(path)
        except UserError as error:
            assert "p.jsonl" in str(error)
        else:  # what was read writes back and reads the same
            write_records(path, records)
            assert sorted(r.to_json()["task"] for r in read_records(path)) == sorted(
                r.task for r in records
            )


def test_sources_with_line_separators_survive_a_resume(tmp_path: Path) -> None:
    from lmr_author.generation.predictions import PredictionRecord

    source = "def f():\n    return 'a\u2028b\u0085c'\r\n"
    record = PredictionRecord("01-A", 1, "s", source, 1, "full", "m", "k", 10)
    path = tmp_path / "p.jsonl"
    write_records(path, [record])
    assert read_records(path) == [record]
