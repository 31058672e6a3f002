"""Rules that read only info.json: each triggered once, and quiet on a good task."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

MakeTask = Callable[..., Path]


def impl0(data: dict) -> dict:
    return data["implementations"][0]


# -- json-syntax ----------------------------------------------------------------------
def test_json_syntax_reports_line_and_column(make_task: MakeTask, findings: Callable) -> None:
    task = make_task(raw_info='{\n  "folder_name": "01-DPO",\n  "year": 2023,,\n}')
    [found] = findings(task)
    assert found.rule == "json-syntax" and found.severity == "error"
    assert found.where == "line 3, column 16"
    assert found.file == "info.json"


def test_json_syntax_not_utf8(make_task: MakeTask, findings: Callable) -> None:
    [found] = findings(make_task(raw_info=b'{"folder_name": "\xff\xfe"}'))
    assert found.rule == "json-syntax" and "UTF-8" in found.message


def test_json_syntax_duplicate_key_is_a_warning(make_task: MakeTask, findings: Callable) -> None:
    good = make_task().joinpath("info.json").read_text()
    task = make_task("02-Dup", raw_info=good.replace('"year": 2023', '"year": 2022, "year": 2023'))
    found = findings(task, "json-syntax")
    assert [f.severity for f in found] == ["warning"] and "'year'" in found[0].message


def test_json_syntax_deeply_nested(make_task: MakeTask, findings: Callable) -> None:
    found = findings(make_task(raw_info="[" * 100_000))
    assert [f.rule for f in found] == ["json-syntax"]


def test_json_syntax_quiet_on_good_task(make_task: MakeTask, findings: Callable) -> None:
    assert findings(make_task(), "json-syntax") == []


# -- unreadable-file ------------------------------------------------------------------
def test_info_json_that_is_a_folder(make_task: MakeTask, findings: Callable) -> None:
    task = make_task()
    (task / "info.json").unlink()
    (task / "info.json").mkdir()
    assert [f.rule for f in findings(task)] == ["unreadable-file"]


# -- schema ---------------------------------------------------------------------------
def test_schema_names_the_json_path(make_task: MakeTask, findings: Callable) -> None:
    def edit(data: dict) -> None:
        impl0(data)["index"] = "one"
        del impl0(data)["unit_test_file"]

    found = findings(make_task(info=edit), "schema")
    assert {(f.where, f.severity) for f in found} == {
        ("$.implementations[0]", "error"),
        ("$.implementations[0].index", "error"),
    }
    assert any("unit_test_file" in f.message for f in found)


def test_schema_top_level_not_an_object(make_task: MakeTask, findings: Callable) -> None:
    found = findings(make_task(raw_info="[1, 2]"))
    assert [(f.rule, f.where) for f in found] == [("schema", "$")]


def test_schema_quiet_on_good_task(make_task: MakeTask, findings: Callable) -> None:
    assert findings(make_task(), "schema") == []


# -- alias-key ------------------------------------------------------------------------
def test_alias_key_is_reported(make_task: MakeTask, findings: Callable) -> None:
    def edit(data: dict) -> None:
        impl0(data)["retrieval_content"] = impl0(data).pop("retrieval_context")

    [found] = findings(make_task(info=edit), "alias-key")
    assert found.where == "$.implementations[0].retrieval_content"
    assert "--fix" in found.hint


def test_alias_key_conflicting_lists_are_not_auto_fixable(
    make_task: MakeTask, findings: Callable
) -> None:
    def edit(data: dict) -> None:
        impl0(data)["retrieval_content"] = ["utils.py"]

    [found] = findings(make_task(info=edit), "alias-key")
    assert "differ" in found.message and "--fix" not in found.hint


def test_alias_key_quiet_on_canonical_key(make_task: MakeTask, findings: Callable) -> None:
    assert findings(make_task(), "alias-key") == []


# -- unknown-category -----------------------------------------------------------------
def test_free_text_category_names_the_nearest(make_task: MakeTask, findings: Callable) -> None:
    def edit(data: dict) -> None:
        impl0(data)["category"] = "loss function"

    [found] = findings(make_task(info=edit), "unknown-category")
    assert found.severity == "warning"
    assert "'Training Objectives & Optimization'" in found.message


def test_missing_category_is_reported(make_task: MakeTask, findings: Callable) -> None:
    def edit(data: dict) -> None:
        del impl0(data)["category"]

    [found] = findings(make_task(info=edit), "unknown-category")
    assert found.message.startswith("no category")


@pytest.mark.parametrize(
    "text",
    [
        "Training Objectives & Optimization",
        "Training Objectives & Optimization Techniques",
        "Information Extraction & Knowledge Integration",
        "Data Augmentation & Generation",
        "Interpretability & Explainability",
    ],
)
def test_canonical_and_published_categories_are_accepted(
    text: str, make_task: MakeTask, findings: Callable
) -> None:
    def edit(data: dict) -> None:
        impl0(data)["category"] = text

    assert findings(make_task(info=edit), "unknown-category") == []


def test_respelled_category_is_fixable(make_task: MakeTask, findings: Callable) -> None:
    def edit(data: dict) -> None:
        impl0(data)["category"] = "evaluation  METRICS"

    [found] = findings(make_task(info=edit), "unknown-category")
    assert "'Evaluation Metrics'" in found.message and "--fix" in found.hint


# -- folder-name ----------------------------------------------------------------------
def test_folder_name_differs(make_task: MakeTask, findings: Callable) -> None:
    def edit(data: dict) -> None:
        data["folder_name"] = "1-DPO"

    [found] = findings(make_task("01-DPO", info=edit), "folder-name")
    assert found.where == "$.folder_name" and "'01-DPO'" in found.message


def test_folder_name_quiet_when_equal(make_task: MakeTask, findings: Callable) -> None:
    assert findings(make_task(), "folder-name") == []


# -- duplicate-index ------------------------------------------------------------------
def test_duplicate_index(make_task: MakeTask, findings: Callable) -> None:
    def edit(data: dict) -> None:
        data["implementations"].append(dict(impl0(data)))

    [found] = findings(make_task(info=edit), "duplicate-index")
    assert found.where == "$.implementations[1].index" and found.severity == "error"


def test_distinct_indexes_are_quiet(make_task: MakeTask, findings: Callable) -> None:
    def edit(data: dict) -> None:
        data["implementations"].append(dict(impl0(data), index=2))

    assert findings(make_task(info=edit), "duplicate-index") == []


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("", "empty"),
        ("A Title\nAuthor One, Author Two", "several lines"),
        ("Title " + "Abstract words " * 40, "holds more than the title"),
    ],
)
def test_paper_name_that_is_no_title(
    make_task: MakeTask, findings: Callable, name: str, problem: str
) -> None:
    def edit(data: dict) -> None:
        data["paper_name"] = name

    [found] = findings(make_task(info=edit), "paper-name")
    assert problem in found.message and found.where == "$.paper_name"
    assert found.severity == "warning"


def test_a_real_title_is_quiet(make_task: MakeTask, findings: Callable) -> None:
    assert findings(make_task(), "paper-name") == []
