"""The Task / Implementation model: load published spellings, resolve paths, save atomically."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lmr_author.domain.task import (
    TaskLoadError,
    find_task_dirs,
    load_task,
    read_info,
    save_task,
)
from lmr_author.util.errors import UserError

INFO = {
    "instance_id": 5,
    "paper_name": "SimPO",
    "folder_name": "05-SimPO",
    "year": 2024,
    "repo_url": "https://example.invalid/simpo",
    "repo_folder_name": "SimPO",
    "implementations": [
        {
            "instruction": "Implement simpo_loss.",
            "index": 1,
            "category": "loss function",
            "goal_file": "scripts/simpo_trainer.py",
            "goal_function": "simpo_loss",
            "class_name": "SimPOTrainer",
            "golden_file": "golden_files/simpo_trainer_golden.py",
            "retrieval_content": ["scripts/utils.py"],
            "unit_test_file": "unit_test/unit_test_1.py",
            "annotator_note": "kept",
        }
    ],
    "license": "MIT",
}


def write_task(root: Path, info: object = INFO, name: str = "05-SimPO") -> Path:
    task = root / name
    task.mkdir()
    (task / "info.json").write_text(json.dumps(info), encoding="utf-8")
    return task


def test_load_resolves_every_path(tmp_path: Path) -> None:
    task = load_task(write_task(tmp_path))
    impl = task.implementation(1)
    root = (tmp_path / "05-SimPO").resolve()
    assert task.name == "05-SimPO" and task.paper_index == 5
    assert task.repo_dir == root / "SimPO"
    assert impl.goal_path == root / "SimPO" / "scripts" / "simpo_trainer.py"
    assert impl.golden_path == root / "golden_files" / "simpo_trainer_golden.py"
    assert impl.unit_test_path == root / "SimPO" / "unit_test" / "unit_test_1.py"
    assert impl.retrieval_paths == [root / "SimPO" / "scripts" / "utils.py"]
    assert impl.qualified_name == "SimPOTrainer.simpo_loss"
    assert task.paper_pdf_path == root / "SimPO" / "paper.pdf"


def test_load_accepts_info_json_path(tmp_path: Path) -> None:
    assert load_task(write_task(tmp_path) / "info.json").name == "05-SimPO"


def test_save_writes_canonical_spelling_and_keeps_unknown_keys(tmp_path: Path) -> None:
    task = load_task(write_task(tmp_path))
    save_task(task)
    data = json.loads(task.info_path.read_text())
    entry = data["implementations"][0]
    assert "retrieval_content" not in entry
    assert entry["retrieval_context"] == ["scripts/utils.py"]
    assert entry["annotator_note"] == "kept" and data["license"] == "MIT"
    assert entry["category"] == "loss function"  # the model never guesses
    assert load_task(task.path).to_info() == data
    assert [p.name for p in task.path.iterdir()] == ["info.json"]  # no temp files


def test_null_class_name_and_category_load(tmp_path: Path) -> None:
    info = json.loads(json.dumps(INFO))
    info["implementations"][0]["class_name"] = None
    info["implementations"][0]["category"] = None
    impl = load_task(write_task(tmp_path, info)).implementation(1)
    assert impl.class_name == "" and impl.category is None


def test_unknown_implementation_index(tmp_path: Path) -> None:
    task = load_task(write_task(tmp_path))
    with pytest.raises(UserError, match="no implementation with index 3"):
        task.implementation(3)


@pytest.mark.parametrize(
    ("content", "words"),
    [
        ("{", "invalid JSON"),
        ("[]", "must hold a JSON object"),
        ('{"repo_folder_name": 1}', "'repo_folder_name' must be a string"),
        ('{"repo_folder_name": "r"}', "'implementations' must be a list"),
        ('{"repo_folder_name": "r", "implementations": [3]}', "must be an object"),
        ("[" * 50_000, "nested too deeply"),
    ],
)
def test_load_errors_are_user_errors(tmp_path: Path, content: str, words: str) -> None:
    task = tmp_path / "t"
    task.mkdir()
    (task / "info.json").write_text(content)
    with pytest.raises(TaskLoadError, match=words) as caught:
        load_task(task)
    assert caught.value.file and str(caught.value).startswith(str(task.resolve()))


def test_read_info_not_utf8_and_missing(tmp_path: Path) -> None:
    (tmp_path / "info.json").write_bytes(b"\xff\xfe{}")
    with pytest.raises(TaskLoadError, match="UTF-8"):
        read_info(tmp_path)
    with pytest.raises(TaskLoadError, match=r"no info\.json"):
        read_info(tmp_path / "nowhere")


def test_info_json_that_is_a_folder(tmp_path: Path) -> None:
    (tmp_path / "info.json").mkdir()
    with pytest.raises(TaskLoadError, match="not a regular file"):
        read_info(tmp_path)


def test_find_task_dirs(tmp_path: Path) -> None:
    write_task(tmp_path, name="02-B")
    write_task(tmp_path, name="01-A")
    (tmp_path / ".hidden").mkdir()
    (tmp_path / "notes").mkdir()
    assert [p.name for p in find_task_dirs(tmp_path)] == ["01-A", "02-B"]
    assert find_task_dirs(tmp_path / "01-A") == [tmp_path / "01-A"]
    with pytest.raises(UserError, match="no such folder"):
        find_task_dirs(tmp_path / "missing")
