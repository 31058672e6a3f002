"""Published-shape label files: import, export, round trip, aliases and the JSON Schema."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from lmr_author.domain.identity import Identity, load_identity, paper_index
from lmr_author.labels import Label
from lmr_author.labels.published import (
    PUBLISHED_KEYS,
    labels_to_records,
    read_label_file,
    write_label_file,
)
from lmr_author.util.errors import UserError

REPO_ROOT = Path(__file__).resolve().parents[2]
# The shared folder sits beside the repository (../shared), as the design says.
REFERENCE = REPO_ROOT.parent / "shared" / "reference" / "formats" / "human-labels-example.json"
SCHEMA = REPO_ROOT / "schemas" / "labels.schema.json"

EXAMPLE = [
    {
        "annotator": "Shuo",
        "agent_type": "openhands_agent",
        "model_name": "gpt4.1",
        "paper_index": 7,
        "function_index": 0,
        "human_judge_result": 1,
        "comment": "unimplemented",
    },
    {
        "annotator": "Shuo",
        "agent_type": "no_agent",
        "model_name": "o4mini",
        "paper_index": 12,
        "function_index": 2,
        "human_judge_result": 3,
        "comment": "",
    },
]


@pytest.fixture
def example_file(tmp_path: Path) -> Path:
    path = tmp_path / "human.json"
    path.write_text(json.dumps(EXAMPLE))
    return path


def test_published_records_become_labels(example_file: Path) -> None:
    first, second = read_label_file(example_file)
    assert (first.annotator, first.system, first.task, first.implementation, first.label) == (
        "Shuo",
        "openhands_agent-gpt4.1",
        "07",  # a bare paper index, zero-padded as the benchmark spells it
        1,  # function_index 0 -> info.json index 1
        1,
    )
    assert first.comment == "unimplemented"
    assert (second.system, second.implementation, second.label) == ("no_agent-o4mini", 3, 3)


def test_the_reference_example_imports() -> None:
    if not REFERENCE.exists():
        pytest.skip("reference formats not present")
    labels = read_label_file(REFERENCE)
    assert len(labels) == len(json.loads(REFERENCE.read_text()))


def test_task_names_come_from_the_benchmark_when_given(example_file: Path) -> None:
    labels = read_label_file(example_file, tasks={7: "07-Foo", 12: "12-Bar"})
    assert [x.task for x in labels] == ["07-Foo", "12-Bar"]


def test_export_then_import_gives_back_the_same_labels(tmp_path: Path) -> None:
    labels = [
        Label(
            "ann", "no_agent-gpt4o", "01-DPO", 1, 3, "fine", "2026-01-01T00:00:00.000Z", "a" * 64
        ),
        Label("ann", "openhands_agent-o4mini", "16-KnowProb", 2, 1, "", "2026-01-02T00:00:00Z"),
        Label("bob", "no_agent-gpt-4o", "5-SimPO", 3, 2, "odd — ünïcode"),
    ]
    out = tmp_path / "out" / "labels.json"
    assert write_label_file(out, labels) == 3
    assert read_label_file(out) == labels
    Draft202012Validator(json.loads(SCHEMA.read_text())).validate(json.loads(out.read_text()))


def test_bare_export_is_exactly_the_published_shape(tmp_path: Path) -> None:
    label = Label("ann", "no_agent-gpt4o", "01-DPO", 2, 3, "x")
    (record,) = labels_to_records([label], bare=True)
    assert tuple(record) == PUBLISHED_KEYS
    assert record["paper_index"] == 1 and record["function_index"] == 1
    assert record["agent_type"] == "no_agent" and record["model_name"] == "gpt4o"


def test_export_needs_a_paper_index() -> None:
    label = Label("ann", "no_agent-gpt4o", "DPO", 1, 3)
    with pytest.raises(UserError, match="paper index"):
        labels_to_records([label])
    (record,) = labels_to_records([label], Identity(tasks={"DPO": 4}))
    assert record["paper_index"] == 4


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"human_judge_result": 4}, "got 4"),
        ({"human_judge_result": 0}, "got 0"),
        ({"human_judge_result": "3"}, "got '3'"),
        ({"function_index": -1}, ">= 0"),
        ({"paper_index": 1.5}, ">= 0"),
        ({"annotator": ""}, "non-empty"),
        ({"comment": 3}, "must be a string"),
    ],
)
def test_a_bad_record_names_the_file_and_the_record(
    tmp_path: Path, change: dict[str, object], message: str
) -> None:
    records = [dict(EXAMPLE[0]), {**EXAMPLE[1], **change}]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(records))
    with pytest.raises(UserError) as caught:
        read_label_file(path)
    text = str(caught.value)
    assert str(path) in text and "record 1" in text and message in text


def test_malformed_files_are_user_errors(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_text("{not json")
    with pytest.raises(UserError, match="invalid JSON"):
        read_label_file(path)
    path.write_text('{"a": 1}')
    with pytest.raises(UserError, match="list"):
        read_label_file(path)
    path.write_text('[{"annotator": "a"}]')
    with pytest.raises(UserError, match=r"record 0.*missing"):
        read_label_file(path)
    path.write_text("[5]")
    with pytest.raises(UserError, match="record 0"):
        read_label_file(path)
    with pytest.raises(UserError, match="cannot read"):
        read_label_file(tmp_path / "missing.json")


def test_schema_accepts_the_reference_and_rejects_bad_labels() -> None:
    validator = Draft202012Validator(json.loads(SCHEMA.read_text()))
    Draft202012Validator.check_schema(validator.schema)
    validator.validate(EXAMPLE)
    assert not validator.is_valid([{**EXAMPLE[0], "human_judge_result": 4}])
    assert not validator.is_valid([{k: v for k, v in EXAMPLE[0].items() if k != "paper_index"}])


def test_default_aliases_match_the_published_layout() -> None:
    aliases = Identity()
    assert aliases.system("BaseAgent", "gpt4o") == "no_agent-gpt4o"
    assert aliases.system("OpenHands", "o4mini") == "openhands_agent-o4mini"
    assert aliases.canonical_system("BaseAgent-gpt4.1") == "no_agent-gpt4.1"
    assert aliases.canonical_system("no_agent-gpt4.1") == "no_agent-gpt4.1"
    assert paper_index("1-DPO") == paper_index("01-DPO") == 1
    assert paper_index("DPO") is None
    assert aliases.task_key("01-DPO") == aliases.task_key("1") == "1"


@pytest.mark.parametrize("suffix", [".toml", ".json"])
def test_user_aliases_add_to_the_defaults(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"aliases{suffix}"
    if suffix == ".toml":
        path.write_text(
            '[agents]\nMyAgent = "my_agent"\n[models]\n"gpt-4o" = "gpt4o"\n'
            '[systems]\ncorrect = "oracle-golden"\n[tasks]\nDPO = 1\n'
        )
    else:
        path.write_text(
            json.dumps(
                {
                    "agents": {"MyAgent": "my_agent"},
                    "models": {"gpt-4o": "gpt4o"},
                    "systems": {"correct": "oracle-golden"},
                    "tasks": {"DPO": 1},
                }
            )
        )
    aliases = load_identity(path)
    assert aliases.system("BaseAgent", "gpt-4o") == "no_agent-gpt4o"
    assert aliases.system("MyAgent", "x") == "my_agent-x"
    assert aliases.canonical_system("correct") == "oracle-golden"
    assert aliases.task_key("DPO") == "1"


def test_bad_aliases_files_are_user_errors(tmp_path: Path) -> None:
    path = tmp_path / "a.toml"
    path.write_text("[agents\n")
    with pytest.raises(UserError, match="TOML"):
        load_identity(path)
    path.write_text('[tasks]\nDPO = "one"\n')
    with pytest.raises(UserError, match=r"tasks\.DPO"):
        load_identity(path)
    path.write_text('[agent]\nX = "y"\n')
    with pytest.raises(UserError, match="unknown section"):
        load_identity(path)


_names = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=12
).filter(lambda s: s.strip() == s and bool(s))
_labels = st.builds(
    Label,
    annotator=_names,
    system=st.builds(
        lambda agent, model: f"{agent}-{model}",
        st.sampled_from(["no_agent", "openhands_agent", "my_agent"]),
        st.sampled_from(["gpt4o", "gpt4.1", "o4mini", "gpt-4o"]),
    ),
    task=st.builds(
        lambda n, pad, name: f"{n:0{pad}d}-{name}",
        st.integers(0, 99),
        st.sampled_from([1, 2]),
        st.sampled_from(["DPO", "SimPO", "Know_Prob"]),
    ),
    implementation=st.integers(1, 9),
    label=st.sampled_from([1, 2, 3]),
    comment=st.text(max_size=30),
    created_at=st.just("2026-05-06T07:08:09.123Z"),
    candidate_sha256=st.sampled_from(["", "ab" * 32]),
)


@settings(max_examples=60, deadline=None)
@given(labels=st.lists(_labels, max_size=8))
def test_round_trip_holds_for_any_labels(labels: list[Label]) -> None:
    records = json.loads(json.dumps(labels_to_records(labels)))
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "labels.json"
        path.write_text(json.dumps(records))
        assert read_label_file(path) == labels


def test_schema_and_code_name_the_same_keys() -> None:
    from lmr_author.labels.published import EXTRA_KEYS

    items = json.loads(SCHEMA.read_text())["items"]
    assert tuple(items["required"]) == PUBLISHED_KEYS[:-1]  # comment is optional
    assert set(items["properties"]) == {*PUBLISHED_KEYS, *EXTRA_KEYS}
    assert items["properties"]["human_judge_result"]["enum"] == [1, 2, 3]
