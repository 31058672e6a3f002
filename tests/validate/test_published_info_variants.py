"""Published info.json variants are read, never a reason not to run: numbers spelt as
digits ("29"), a missing folder_name, the retrieval_content alias, missing or off-list
categories, null class names and extra keys load as the task they mean, are warnings
with --fix, and never schema errors (which would keep validate --run from the task)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lmr_author.cli import main
from lmr_author.domain.benchmark import load_benchmark
from lmr_author.domain.task import load_task
from tests.support.fuzz import FUZZ
from tests.support.published_task import write_published_task


def _rewrite(task_dir: Path, change: Any) -> None:
    info = json.loads((task_dir / "info.json").read_text())
    change(info)
    (task_dir / "info.json").write_text(json.dumps(info))


def _findings(task_dir: Path, capsys: pytest.CaptureFixture[str]) -> list[dict[str, Any]]:
    main(["validate", str(task_dir), "--json"])
    report = json.loads(capsys.readouterr().out)
    found: list[dict[str, Any]] = []
    for task in report if isinstance(report, list) else report.get("tasks", [report]):
        found.extend(task.get("findings", []))
    return found


def test_numbers_spelt_as_digits_are_fixable_warnings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    task_dir = write_published_task(tmp_path, "29-Sophia")

    def spell(info: dict[str, Any]) -> None:
        info["instance_id"] = "29"
        info["year"] = "2024"
        info["implementations"][0]["index"] = "1"

    _rewrite(task_dir, spell)
    task = load_task(task_dir)
    assert (task.instance_id, task.year, task.implementations[0].index) == (29, 2024, 1)

    found = _findings(task_dir, capsys)
    spelt = {f["where"] for f in found if f["rule"] == "number-string"}
    assert spelt == {"$.instance_id", "$.year", "$.implementations[0].index"}
    assert not [f for f in found if f["rule"] == "schema"]

    main(["validate", str(task_dir), "--fix"])
    capsys.readouterr()
    info = json.loads((task_dir / "info.json").read_text())
    assert (info["instance_id"], info["year"], info["implementations"][0]["index"]) == (29, 2024, 1)
    assert not [f for f in _findings(task_dir, capsys) if f["rule"] == "number-string"]


def test_a_missing_folder_name_is_the_folders_and_fixable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    task_dir = write_published_task(tmp_path, "31-Syn")
    _rewrite(task_dir, lambda info: info.pop("folder_name"))
    assert load_task(task_dir).folder_name == "31-Syn"
    found = _findings(task_dir, capsys)
    assert [f["rule"] for f in found if f["rule"] in ("folder-name", "schema")] == ["folder-name"]
    main(["validate", str(task_dir), "--fix"])
    capsys.readouterr()
    assert json.loads((task_dir / "info.json").read_text())["folder_name"] == "31-Syn"


def test_other_strings_stay_schema_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    task_dir = write_published_task(tmp_path, "30-Odd")
    _rewrite(task_dir, lambda info: info.update(instance_id="twenty-nine"))
    rules = {f["rule"] for f in _findings(task_dir, capsys)}
    assert "schema" in rules and "number-string" not in rules


_VARIANTS = {
    "instance_id": st.sampled_from([29, "29", "029", None]),
    "year": st.sampled_from([2024, "2024", None]),
    "folder_name": st.sampled_from(["keep", "drop", "other"]),
    "retrieval": st.sampled_from(["context", "content", "drop"]),
    "category": st.sampled_from(
        ["Evaluation Metrics", "evaluation metrics", "drop", None, "Loss Function"]
    ),
    "class_name": st.sampled_from(["", None, "drop"]),
    "extra": st.booleans(),
    "index": st.sampled_from([1, "1"]),
}


@FUZZ
@given(**_VARIANTS)
def test_every_mix_of_published_variants_loads_and_has_no_errors(
    tmp_path_factory: pytest.TempPathFactory, **variant: Any
) -> None:
    root = tmp_path_factory.mktemp("variants")
    task_dir = write_published_task(root, "12-Var")

    def apply(info: dict[str, Any]) -> None:
        entry = info["implementations"][0]
        for key in ("instance_id", "year"):
            if variant[key] is None:
                info.pop(key, None)
            else:
                info[key] = variant[key]
        if variant["folder_name"] == "drop":
            info.pop("folder_name")
        elif variant["folder_name"] == "other":
            info["folder_name"] = "12-Elsewhere"
        if variant["retrieval"] == "content":
            entry["retrieval_content"] = entry.pop("retrieval_context")
        elif variant["retrieval"] == "drop":
            entry.pop("retrieval_context")
        if variant["category"] == "drop":
            entry.pop("category")
        else:
            entry["category"] = variant["category"]
        if variant["class_name"] == "drop":
            entry.pop("class_name")
        else:
            entry["class_name"] = variant["class_name"]
        entry["index"] = variant["index"]
        if variant["extra"]:
            info["dataset"] = {"name": "x"}
            entry["notes"] = ["published extra key"]

    _rewrite(task_dir, apply)
    task = load_task(task_dir)
    assert task.implementations[0].goal_function == "weighted_mean"
    assert task.implementations[0].index == 1
    assert not load_benchmark(root).broken
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["validate", str(task_dir), "--json"])
    report = json.loads(out.getvalue())
    tasks = report if isinstance(report, list) else report.get("tasks", [report])
    errors = [
        f
        for t in tasks
        for f in t.get("findings", [])
        if f["severity"] == "error" and f["rule"] != "missing-path"  # no paper.pdf here
    ]
    assert errors == [], errors
    assert code in (0, 1)
