"""schemas/info.schema.json: real documents validate, and the schema and model agree."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from lmr_author.domain.categories import CATEGORIES, PUBLISHED_VARIANTS, match_category
from lmr_author.domain.task import Implementation, Task, task_from_info
from lmr_author.util.schema import load_schema, schema_issues, schema_path

FORMATS = Path(__file__).resolve().parents[2].parent / "shared" / "reference" / "formats"
PUBLISHED = sorted(FORMATS.glob("info-*.json"))


def test_schema_is_valid_2020_12() -> None:
    schema = load_schema("info")
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema_path("info").name == "info.schema.json"


@pytest.mark.skipif(not PUBLISHED, reason="shared reference formats not beside the repository")
@pytest.mark.parametrize("path", PUBLISHED, ids=lambda p: p.name)
def test_published_info_files_validate(path: Path) -> None:
    document = json.loads(path.read_text(encoding="utf-8"))
    assert schema_issues(document) == []
    task = task_from_info(Path("/tasks") / document["folder_name"], document)
    assert task.implementations


def test_model_output_validates_and_round_trips() -> None:
    task = Task(
        path=Path("/tasks/01-DPO"),
        instance_id=1,
        folder_name="01-DPO",
        repo_folder_name="repo",
        paper_name="P",
        year=2023,
        repo_commit="abc123",
        implementations=[
            Implementation(
                index=1,
                instruction="Implement f.",
                goal_file="a.py",
                goal_function="f",
                golden_file="golden_files/a_golden.py",
                unit_test_file="unit_test/unit_test_1.py",
                class_name="C",
                category=CATEGORIES[0],
                retrieval_context=["b.py"],
                extra={"notes": "kept"},
            )
        ],
        extra={"custom": [1, 2]},
    )
    info = task.to_info()
    assert schema_issues(info) == []
    again = task_from_info(task.path, info).to_info()
    assert again == info


def test_schema_knows_every_key_the_model_writes() -> None:
    """Drift check: a key the model writes but the schema does not describe fails here."""
    schema = load_schema("info")
    impl = Implementation(1, "i", "a.py", "f", "g.py", "t.py", category="x")
    task = Task(Path("/t"), 1, "t", "r", repo_commit="c", implementations=[impl])
    assert set(task.to_info()) <= set(schema["properties"])
    impl_schema = schema["$defs"]["implementation"]
    assert set(impl.to_info()) <= set(impl_schema["properties"])
    assert set(impl_schema["required"]) <= set(impl.to_info())


def test_schema_lists_the_nine_categories() -> None:
    examples = load_schema("info")["$defs"]["implementation"]["properties"]["category"]
    assert tuple(examples["examples"]) == CATEGORIES
    assert len(CATEGORIES) == 9


@pytest.mark.parametrize(
    ("document", "path", "words"),
    [
        ({"folder_name": "x", "repo_folder_name": "r"}, "$", "'implementations'"),
        (
            {"folder_name": "x", "repo_folder_name": "r", "implementations": []},
            "$.implementations",
            "empty",
        ),
        (
            {"folder_name": 3, "repo_folder_name": "r", "implementations": [{}]},
            "$.folder_name",
            "string",
        ),
    ],
)
def test_issues_are_readable(document: dict, path: str, words: str) -> None:
    issues = [i for i in schema_issues(document) if i.path == path]
    assert issues and any(words in i.message for i in issues), schema_issues(document)


def test_alias_and_free_text_category_pass_the_schema() -> None:
    document = json.loads((FORMATS / "info-05-SimPO.json").read_text()) if PUBLISHED else None
    if document is None:
        pytest.skip("shared reference formats not beside the repository")
    assert document["implementations"][0]["category"] == "loss function"
    assert schema_issues(document) == []


@pytest.mark.parametrize(
    ("text", "kind", "category"),
    [
        ("Evaluation Metrics", "canonical", "Evaluation Metrics"),
        ("Training Objectives & Optimization Techniques", "variant", CATEGORIES[5]),
        ("training objectives and optimization", "spelling", CATEGORIES[5]),
        ("loss function", "nearest", CATEGORIES[5]),
        ("beam search decoding", "nearest", "Decoding & Search Strategies"),
        ("attention layer", "nearest", "Neural Network Architectures"),
        ("BLEU score", "nearest", "Evaluation Metrics"),
        ("probing", "nearest", "Interpretability & Explainability"),
        ("", "missing", None),
        (None, "missing", None),
    ],
)
def test_match_category(text: str | None, kind: str, category: str | None) -> None:
    match = match_category(text)
    assert (match.kind, match.category) == (kind, category)
    assert match.fixable == (kind == "spelling")


def test_published_variants_map_to_canonical_names() -> None:
    assert set(PUBLISHED_VARIANTS.values()) <= set(CATEGORIES)
