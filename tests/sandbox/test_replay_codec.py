"""The replay codec: what crosses, what is refused, and that loading runs no code."""

from __future__ import annotations

import math

import numpy as np
import pytest

from lmr_author.domain import replay_codec
from lmr_author.domain.replay_codec import CodecError, EncodedObject


class Point:
    def __init__(self, x: float, y: np.ndarray) -> None:
        self.x = x
        self.y = y


def test_values_round_trip_with_their_types() -> None:
    value = {
        "ints": [1, -2, 3],
        "tuple": (1.5, "a", None, True),
        "nan": float("nan"),
        "inf": (float("inf"), float("-inf")),
        "bytes": b"\x00\xff",
        "complex": 1 + 2j,
        "array": np.arange(6, dtype=np.float32).reshape(2, 3),
        "scalar": np.int64(7),
        "keys": {(1, 2): "tuple key", 3: "int key", "$x": "tag-like key"},
    }
    back = replay_codec.loads(replay_codec.dumps(value))
    assert back["ints"] == [1, -2, 3]
    assert back["tuple"] == (1.5, "a", None, True)
    assert math.isnan(back["nan"]) and back["inf"] == (math.inf, -math.inf)
    assert back["bytes"] == b"\x00\xff" and back["complex"] == 1 + 2j
    assert back["array"].dtype == np.float32 and back["array"].shape == (2, 3)
    assert back["scalar"] == 7
    assert back["keys"] == {(1, 2): "tuple key", 3: "int key", "$x": "tag-like key"}
    assert replay_codec.close(value, back)


def test_objects_come_back_only_when_allowed() -> None:
    text = replay_codec.dumps(Point(1.0, np.ones(2)), allow_objects=True)
    plain = replay_codec.loads(text)
    assert isinstance(plain, EncodedObject) and plain.type_name.endswith(":Point")
    rebuilt = replay_codec.loads(text, allow_objects=True)
    assert isinstance(rebuilt, Point) and rebuilt.x == 1.0


def test_loading_never_imports_or_runs_anything(monkeypatch: pytest.MonkeyPatch) -> None:
    # An output naming a module: without allow_objects it stays data (no import).
    text = (
        '{"format": "lmr-replay/1", "value": {"$object": {"type": "antigravity:x", "state": {}}}}'
    )
    monkeypatch.delitem(__import__("sys").modules, "antigravity", raising=False)
    value = replay_codec.loads(text)
    assert isinstance(value, EncodedObject)
    assert "antigravity" not in __import__("sys").modules


DOC = '{"format": "lmr-replay/1", "value": %s}'


@pytest.mark.parametrize(
    "text",
    [
        "not json",
        '{"value": 1}',
        DOC % '{"$ndarray": {"dtype": "|O", "shape": [1], "data": ""}}',
        DOC % '{"$ndarray": {"dtype": "<f8", "shape": [4], "data": "AAAA"}}',
        DOC % '{"$float": "1e999"}',
        DOC % '{"$nope": 1}',
        DOC % ("[" * 5000 + "]" * 5000),
    ],
    ids=["garbage", "no-format", "object-dtype", "short-data", "bad-float", "unknown-tag", "deep"],
)
def test_malformed_documents_are_codec_errors(text: str) -> None:
    with pytest.raises(CodecError):
        replay_codec.loads(text)


def test_values_that_cannot_cross_are_refused() -> None:
    with pytest.raises(CodecError):
        replay_codec.dumps(Point(1.0, np.ones(1)))  # objects only when allowed
    with pytest.raises(CodecError):
        replay_codec.dumps(np.array([object()]))
    with pytest.raises(CodecError):
        replay_codec.dumps({1, 2})


def test_close_uses_the_template_tolerances() -> None:
    assert replay_codec.close(1.0, 1.0 + 1e-7)
    assert not replay_codec.close(1.0, 1.001)
    assert not replay_codec.close(np.ones(3), np.ones(4))
    assert not replay_codec.close([1, 2], [1, 2, 3])
    assert not replay_codec.close(True, 1)
    assert replay_codec.close(float("nan"), float("nan"))
    assert not replay_codec.close({"a": 1}, {"b": 1})
