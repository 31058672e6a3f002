"""The JSON input owner: every way a file can be wrong is one UserError with a place."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lmr_author.util.errors import UserError
from lmr_author.util.json_input import (
    MAX_DEPTH,
    iter_jsonl,
    load_json,
    nesting_depth,
    parse_json,
)


def test_depth_is_measured_without_recursion_and_ignores_strings() -> None:
    assert nesting_depth('{"a": [1, {"b": "[[[[{{{{"}]}') == 3
    assert nesting_depth("[" * 100_000 + "]" * 100_000) == 100_000
    assert nesting_depth('"\\"[[" ') == 0


@pytest.mark.parametrize(
    ("text", "message", "where"),
    [
        ("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1), "nested too deeply", None),
        ("[" * 200_000, "nested too deeply", None),
        ("1" * 5000, "4300", None),
        ('{"a": 1,\n "b": }', "invalid JSON", "line 2, column 7"),
    ],
)
def test_parse_errors(text: str, message: str, where: str | None) -> None:
    with pytest.raises(UserError) as caught:
        parse_json(text, file="x.json", what="label file")
    assert message in caught.value.message and caught.value.file == "x.json"
    assert caught.value.where == where


def test_files_that_cannot_be_read(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="does not exist"):
        load_json(tmp_path / "missing.json")
    with pytest.raises(UserError, match="is a folder"):
        load_json(tmp_path)
    binary = tmp_path / "b.json"
    binary.write_bytes(b'{"a":\n "\xff"}')
    with pytest.raises(UserError) as caught:
        load_json(binary, what="spec file")
    assert "not UTF-8" in caught.value.message and caught.value.where == "line 2"
    bom = tmp_path / "bom.json"
    bom.write_bytes(b"\xef\xbb\xbf" + b'{"a": 1}')
    assert load_json(bom) == {"a": 1}


def test_jsonl_is_split_on_newlines_only(tmp_path: Path) -> None:
    path = tmp_path / "p.jsonl"
    lines = [json.dumps({"source": "a\u2028b\u2029c\x85d\x0ce"}, ensure_ascii=False), "", "[2]"]
    path.write_text("\r\n".join(lines) + "\n", encoding="utf-8")
    assert list(iter_jsonl(path)) == [(1, {"source": "a\u2028b\u2029c\x85d\x0ce"}), (3, [2])]
    path.write_text('{"a": 1}\n{"b": \n', encoding="utf-8")
    with pytest.raises(UserError) as caught:
        list(iter_jsonl(path, what="predictions file"))
    assert caught.value.where == "line 2" and "invalid JSON" in caught.value.message


def test_a_write_that_fails_is_a_user_error_and_an_os_error(tmp_path: Path) -> None:
    from lmr_author.util.atomic import WriteError, atomic_write_text

    blocker = tmp_path / "file"
    blocker.write_text("x")
    for target, message in ((tmp_path, "is a folder"), (blocker / "x.json", "is a file")):
        with pytest.raises(WriteError) as caught:
            atomic_write_text(target, "data")
        assert isinstance(caught.value, OSError) and isinstance(caught.value, UserError)
        assert message in str(caught.value) and str(target) in str(caught.value)
    assert not list(tmp_path.glob(".*.tmp"))
