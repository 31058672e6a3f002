"""The replay codec: what crosses, what is refused, and that loading runs no code."""

from __future__ import annotations

import collections
import json
import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lmr_author.domain import replay_codec
from lmr_author.domain.replay_codec import CodecError, EncodedObject, KeyValuePairs


class Point:
    def __init__(self, x: float, y: np.ndarray) -> None:
        self.x = x
        self.y = y


def _closure(value: Any) -> Any:
    """A function that holds a value of its maker's: it cannot be made again."""
    return lambda: value


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
    with pytest.raises(CodecError, match="is a closure"):
        replay_codec.dumps({"f": _closure(1)}, allow_objects=True)
    with pytest.raises(CodecError, match="cannot be stored"):
        replay_codec.dumps({"f": len})  # functions only when objects are allowed


def test_close_uses_the_template_tolerances() -> None:
    assert replay_codec.close(1.0, 1.0 + 1e-7)
    assert not replay_codec.close(1.0, 1.001)
    assert not replay_codec.close(np.ones(3), np.ones(4))
    assert not replay_codec.close([1, 2], [1, 2, 3])
    assert not replay_codec.close(True, 1)
    assert replay_codec.close(float("nan"), float("nan"))
    assert not replay_codec.close({"a": 1}, {"b": 1})


class Param:
    """Hashable by identity, as a torch parameter is."""

    def __init__(self, data: list[float]) -> None:
        self.data = np.array(data)
        self.grad: np.ndarray | None = None


class Optim:
    def __init__(self, params: list[Param]) -> None:
        self.state: collections.defaultdict[Param, dict[str, Any]] = collections.defaultdict(dict)
        self.param_groups = [{"params": params, "lr": 0.1}]
        self.hooks: collections.OrderedDict[int, str] = collections.OrderedDict()


def test_an_object_met_twice_comes_back_as_one_object() -> None:
    params = [Param([1.0, 2.0]), Param([3.0])]
    optim = Optim(params)
    optim.state[params[0]]["momentum"] = np.zeros(2)
    back = replay_codec.loads(replay_codec.dumps(optim, allow_objects=True), allow_objects=True)
    # The state is keyed by the very parameters the groups hold, as the optimizer reads it.
    (key,) = back.state
    assert key is back.param_groups[0]["params"][0]
    assert isinstance(back.state, collections.defaultdict) and back.state[params[1]] == {}
    assert isinstance(back.hooks, collections.OrderedDict)


def test_an_object_that_holds_itself_is_stored_read_and_compared() -> None:
    point = Point(1.0, np.ones(1))
    point.me = point  # type: ignore[attr-defined]
    text = replay_codec.dumps(point, allow_objects=True)
    back = replay_codec.loads(text, allow_objects=True)
    assert back.me is back
    want, got = replay_codec.loads(text), replay_codec.loads(text)
    assert replay_codec.close(want, got) and "<...>" in repr(want)
    point.x = 2.0
    assert not replay_codec.close(
        want, replay_codec.loads(replay_codec.dumps(point, allow_objects=True))
    )


def test_shared_parts_are_compared_once() -> None:
    # 30 levels, each holding the level below twice: 2**30 paths, 31 objects.
    level = Point(0.0, np.ones(1))
    for _ in range(30):
        level = Point(1.0, [level, level])
    text = replay_codec.dumps(level, allow_objects=True)
    assert replay_codec.close(replay_codec.loads(text), replay_codec.loads(text))


def test_sets_round_trip() -> None:
    value = {"tags": {"a", "b"}, "frozen": frozenset({1, 2})}
    assert replay_codec.loads(replay_codec.dumps(value)) == value


def test_read_for_comparison_a_mapping_keyed_by_objects_keeps_its_pairs() -> None:
    params = [Param([1.0]), Param([2.0])]
    optim = Optim(params)
    for param in params:
        optim.state[param]["step"] = 1
    want = replay_codec.loads(replay_codec.dumps(optim, allow_objects=True))
    optim.state[params[1]]["step"] = 2
    got = replay_codec.loads(replay_codec.dumps(optim, allow_objects=True))
    assert isinstance(want.state["state"], KeyValuePairs)
    assert replay_codec.close(want, want) and not replay_codec.close(want, got)


@pytest.mark.parametrize(
    ("value", "where"),
    [
        ({"args": [1, _closure(0)]}, "['args'][1]"),
        (Point(1.0, [np.ones(1), _closure(2)]), ".y[1]"),
    ],
)
def test_what_cannot_be_stored_is_named_by_where_it_is(value: Any, where: str) -> None:
    with pytest.raises(CodecError) as caught:
        replay_codec.dumps(value, allow_objects=True)
    assert caught.value.where == where and "function" in str(caught.value)


def test_a_class_made_inside_a_function_is_refused() -> None:
    class Local:
        pass

    with pytest.raises(CodecError, match="Local cannot be stored"):
        replay_codec.dumps(Local(), allow_objects=True)


def test_outcomes_compare_the_inputs_the_golden_call_changed() -> None:
    golden = Optim([Param([1.0])])
    expected = replay_codec.read_outcome(replay_codec.dumps(None, changed={"self": golden}))
    same = replay_codec.read_outcome(replay_codec.dumps(None, changed={"self": golden}))
    assert replay_codec.outcome_mismatches(expected, same) == []
    golden.param_groups[0]["lr"] = 0.2
    moved = replay_codec.read_outcome(replay_codec.dumps(None, changed={"self": golden}))
    assert replay_codec.outcome_mismatches(expected, moved) == [
        "self after the call differs from what the golden call left"
    ]
    # An output that leaves the changed inputs out, or could not store them, fails.
    bare = replay_codec.read_outcome(replay_codec.dumps(None))
    assert replay_codec.outcome_mismatches(expected, bare) == [
        "self after the call was not stored (not written)"
    ]
    golden.param_groups[0]["lr"] = _closure(0.1)
    broken = replay_codec.read_outcome(replay_codec.dumps(None, changed={"self": golden}))
    (problem,) = replay_codec.outcome_mismatches(expected, broken)
    assert problem.startswith("self after the call was not stored (the function")


def test_a_fixture_names_the_inputs_to_compare_after_the_call() -> None:
    case = {"self": Point(1.0, np.ones(1)), "args": [np.ones(2)], "kwargs": {"beta": 0.5}}
    text = replay_codec.document(replay_codec.encode(case, allow_objects=True), watch=["args[0]"])
    back, watch = replay_codec.load_fixture(text)
    assert list(replay_codec.case_inputs(back)) == ["self", "args[0]", "kwargs['beta']"]
    assert list(replay_codec.inputs_after(back, watch)) == ["args[0]"]
    with pytest.raises(CodecError):
        replay_codec.load_fixture(replay_codec.document(1, watch="self"))


@pytest.mark.parametrize(
    "value",
    [
        '{"$ref": 1}',
        '[{"$ndarray": {"dtype": "<f8", "shape": [], "data": "AAAAAAAA8D8=", "id": 1}},'
        ' {"$ndarray": {"dtype": "<f8", "shape": [], "data": "AAAAAAAA8D8=", "id": 1}}]',
        '{"$defaultdict": {"factory": "os.system", "items": {}}}',
        '{"$object": {"type": "collections:OrderedDict", "state": []}}',
    ],
    ids=["dangling-ref", "repeated-id", "bad-factory", "bad-state"],
)
def test_malformed_references_and_mappings_are_codec_errors(value: str) -> None:
    with pytest.raises(CodecError):
        replay_codec.loads(DOC % value, allow_objects=True)


_TAGS = st.sampled_from(
    [
        "$ref",
        "$set",
        "$frozenset",
        "$dict",
        "$ordereddict",
        "$defaultdict",
        "$object",
        "$tensor",
        "$ndarray",
        "$tuple",
        "$unstorable",
        "$float",
        "$bytes",
        "$complex",
    ]
)
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(max_size=4), inner, max_size=3)
        | st.builds(lambda tag, body: {tag: body}, _TAGS, inner)
    ),
    max_leaves=25,
)


@settings(max_examples=300, deadline=None)
@given(expected=_JSON, actual=_JSON)
def test_any_output_document_is_read_and_compared_or_refused(expected: Any, actual: Any) -> None:
    # What a candidate writes is read on the host: a CodecError or a verdict, nothing else.
    texts = [
        json.dumps({"format": replay_codec.FORMAT, "value": value, "changed": {"self": value}})
        for value in (expected, actual)
    ]
    try:
        want, got = (replay_codec.read_outcome(text) for text in texts)
    except CodecError:
        return
    assert isinstance(replay_codec.outcome_mismatches(want, got), list)
    repr(got)


class Layer:
    """Holds functions as published modules do (``self.lora_dropout = lambda x: x``)."""

    def __init__(self) -> None:
        self.act = math.tanh
        self.scale, self.shift = (lambda x: x * 3), (lambda x: x + 3)
        self.helper = _closure


def test_functions_an_object_holds_are_stored_by_where_they_are_defined() -> None:
    layer = Layer()
    text = replay_codec.dumps(layer, allow_objects=True)
    state = json.loads(text)["value"]["$object"]["state"]
    assert state["act"] == {"$function": "math:tanh"}
    assert state["helper"] == {"$function": f"{__name__}:_closure"}
    assert state["scale"]["$function"]["qualname"] == "Layer.__init__.<locals>.<lambda>"
    back = replay_codec.loads(text, allow_objects=True)
    # Two lambdas of one line, each made again from this module's source.
    assert (back.scale(2), back.shift(2), back.act(0.0)) == (6, 5, 0.0)
    assert back.helper is _closure
    # Read for comparison: a name, not a function, and equal to itself.
    plain = replay_codec.loads(text)
    assert plain.state["act"] == EncodedObject("function", "math:tanh")
    assert replay_codec.close(plain, replay_codec.loads(text))


def test_a_function_reference_never_brings_code_of_its_own() -> None:
    missing = {"module": __name__, "qualname": "Layer.nowhere.<locals>.<lambda>", "line": 1}
    doc = json.dumps({"format": replay_codec.FORMAT, "value": {"$function": missing}})
    with pytest.raises(CodecError, match=r"no function Layer\.nowhere"):
        replay_codec.loads(doc, allow_objects=True)
    bad = json.dumps({"format": replay_codec.FORMAT, "value": {"$function": 3}})
    with pytest.raises(CodecError, match="bad \\$function"):
        replay_codec.loads(bad)
